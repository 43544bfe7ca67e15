/** Where the prebuilt workflow bundle lives, and how to build it (at `npm run build` and in the Docker image). */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url)); // dist/src
/** The compiled workflows entry (`dist/src/workflows/index.js`). */
export const workflowsPath = join(here, 'workflows', 'index.js');
/** The prebuilt bundle written by `npm run build`. */
export const workflowBundlePath = resolve(here, '..', 'workflow-bundle.js');

/** The prebuilt bundle with OpenTelemetry's workflow interceptors (used when tracing is on). */
export const tracedWorkflowBundlePath = resolve(here, '..', 'workflow-bundle-traced.js');

export function prebuiltBundle({ traced = false }: { traced?: boolean } = {}): { codePath: string } | undefined {
  const path = traced ? tracedWorkflowBundlePath : workflowBundlePath;
  return existsSync(path) ? { codePath: path } : undefined;
}
