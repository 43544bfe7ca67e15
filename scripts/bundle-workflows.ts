// Builds the workflow bundles once, so workers (and tests) start without running webpack: the plain one, the traced
// one (with OpenTelemetry's workflow interceptors) that a worker uses when tracing is on, and each of the two with
// encoded failures (src/codec/failure-converter.cts) for a worker with a payload codec.
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { encodedFailureConverterPath } from '../src/codec/index.js';
import { workflowBundleFile, workflowsPath } from '../src/worker/workflow-code.js';
import { workflowTracingModule } from '../src/telemetry/tracing.js';

const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } as any;
for (const traced of [false, true]) {
  for (const encodedFailures of [false, true]) {
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
}
