// Builds the workflow bundles once, so workers (and tests) start without running webpack: the plain one, and
// the traced one (with OpenTelemetry's workflow interceptors) that a worker uses when tracing is on.
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { tracedWorkflowBundlePath, workflowBundlePath, workflowsPath } from '../src/worker.js';
import { workflowTracingModule } from '../src/telemetry/tracing.js';

const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } as any;
for (const [path, workflowInterceptorModules] of [
  [workflowBundlePath, []],
  [tracedWorkflowBundlePath, [workflowTracingModule]],
] as const) {
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [...workflowInterceptorModules], logger });
  await writeFile(path, code);
  console.log(`workflow bundle: ${path} (${(code.length / 1024).toFixed(0)} KiB)`);
}
