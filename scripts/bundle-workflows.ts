// Builds the workflow bundles once, so workers (and tests) start without running webpack: the plain one, the traced
// one (with OpenTelemetry's workflow interceptors) that a worker uses when tracing is on, and each of the two with
// encoded failures (src/codec/failure-converter.cts) for a worker with a payload codec.
// A build that changed nothing skips webpack: `dist/.bundles-stamp` holds the hash of what goes into the bundles
// (src/worker/bundle-inputs.ts: the compiled code and the bundled packages' versions); `--force` makes them anyway.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { encodedFailureConverterPath } from '../src/codec/index.js';
import { bundleInputsHash } from '../src/worker/bundle-inputs.js';
import { workflowBundleFile, workflowsPath } from '../src/worker/workflow-code.js';
import { workflowTracingModule } from '../src/telemetry/tracing.js';

const variants = [false, true].flatMap((traced) => [false, true].map((encodedFailures) => ({ traced, encodedFailures })));
const files = variants.map((v) => workflowBundleFile(v));
const stamp = join(files[0]!, '..', '.bundles-stamp');
const hash = bundleInputsHash('prebuilt workflow bundles');
if (!process.argv.includes('--force') && files.every((f) => existsSync(f)) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash) {
  console.log('workflow bundles: up to date (nothing they are made of changed)');
  process.exit(0);
}
// Interrupted between two bundles, a build leaves no stamp: the next one makes them all again.
rmSync(stamp, { force: true });
const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } as any;
for (const { traced, encodedFailures } of variants) {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: traced ? [workflowTracingModule] : [],
    ...(encodedFailures ? { failureConverterPath: encodedFailureConverterPath } : {}),
    logger,
  });
  const path = workflowBundleFile({ traced, encodedFailures });
  await writeFile(path, code);
  console.log(`workflow bundle: ${path} (${(code.length / 1024).toFixed(0)} KiB)`);
}
await writeFile(stamp, `${hash}\n`);
