/**
 * Where a worker's workflow code comes from: durable-mcp's compiled workflows entry, the prebuilt bundles of
 * `npm run build` (scripts/bundle-workflows.ts: one for each variant, with or without OpenTelemetry's workflow
 * interceptors and durable-mcp's encoded failures), or the user's own workflows module or bundle.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { encodedFailureConverterPath } from '../codec/index.js';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..'); // dist/src
/** The compiled workflows entry (`dist/src/workflows/index.js`). */
export const workflowsPath = join(src, 'workflows', 'index.js');

/** Which prebuilt bundle: with OpenTelemetry's workflow interceptors (tracing on), with encoded failures (a payload codec). */
export interface BundleVariant {
  traced?: boolean;
  /** Failure messages and stack traces in an encoded payload (src/codec/failure-converter.cts). */
  encodedFailures?: boolean;
}

/** The prebuilt bundles written by `npm run build` (scripts/bundle-workflows.ts), one for each variant. */
export function workflowBundleFile({ traced = false, encodedFailures = false }: BundleVariant = {}): string {
  return resolve(src, '..', `workflow-bundle${traced ? '-traced' : ''}${encodedFailures ? '-encoded-failures' : ''}.js`);
}

/** The prebuilt bundle written by `npm run build`. */
export const workflowBundlePath = workflowBundleFile();

export function prebuiltBundle(variant: BundleVariant = {}): { codePath: string } | undefined {
  const path = workflowBundleFile(variant);
  return existsSync(path) ? { codePath: path } : undefined;
}

/** The workflow code of a worker: exactly one of a path to bundle at start and a bundle. */
export type WorkflowCode = Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'>;

/**
 * The user's workflows (`workflowBundle`, else `workflowsPath`, which must also export durable-mcp's workflows), else
 * durable-mcp's own: the prebuilt bundle of the variant when the data converter's failure converter is one a prebuilt
 * bundle holds (Temporal's default or durable-mcp's encoding one) and it has no payload converter of its own, else its
 * workflows entry, bundled at start with the data converter's converters.
 */
export function workflowCode(user: WorkflowCode, dataConverter: DataConverter | undefined, traced: boolean): WorkflowCode {
  if (user.workflowBundle) return { workflowBundle: user.workflowBundle };
  if (user.workflowsPath) return { workflowsPath: user.workflowsPath };
  const failures = dataConverter?.failureConverterPath;
  const prebuilt =
    !dataConverter?.payloadConverterPath && (failures === undefined || failures === encodedFailureConverterPath)
      ? prebuiltBundle({ traced, encodedFailures: failures !== undefined })
      : undefined;
  return prebuilt ? { workflowBundle: prebuilt } : { workflowsPath };
}
