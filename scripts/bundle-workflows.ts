// Builds the workflow bundle once, so workers (and tests) start without running webpack.
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlePath, workflowsPath } from '../src/bundle.js';

const { code } = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } as any });
await writeFile(workflowBundlePath, code);
console.log(`workflow bundle: ${workflowBundlePath} (${(code.length / 1024).toFixed(0)} KiB)`);
