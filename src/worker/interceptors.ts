/**
 * The worker's interceptors and sinks: durable-mcp's metrics sinks, OpenTelemetry's interceptors when tracing is on
 * (before the user's own), and workflow interceptor modules only where the worker bundles workflow code at start (a
 * prebuilt bundle has its own built in: the traced one when tracing is on).
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerInterceptors, WorkerOptions } from '@temporalio/worker';
import { durableMcpSinks, tracesRequested } from '../telemetry/metrics.js';
import { loadTracing } from '../telemetry/load-tracing.js';
import type { TracingSetup } from '../telemetry/tracing.js';

type Traced = Pick<WorkerOptions, 'interceptors' | 'sinks'>;

/** OpenTelemetry's interceptors and sinks, or undefined when tracing is off. The OpenTelemetry SDK is loaded only when it is on. */
export async function tracingOptions(setting: TracingSetup | false | undefined): Promise<Traced | undefined> {
  if (setting === false || (setting === undefined && !tracesRequested())) return undefined;
  const tracing = await loadTracing();
  const setup = setting ?? tracing.tracingFromEnv();
  return setup ? tracing.tracingWorkerOptions(setup) : undefined;
}

export function workerInterceptors(user: WorkerOptions['interceptors'], traced: Traced | undefined, bundlesAtStart: boolean): WorkerInterceptors {
  const clientWorkflow = (i: WorkerOptions['interceptors']) => (i?.client?.workflow as WorkflowClientInterceptor[] | undefined) ?? [];
  return {
    ...user,
    client: { ...user?.client, workflow: [...clientWorkflow(traced?.interceptors), ...clientWorkflow(user)] },
    activity: [...(traced?.interceptors?.activity ?? []), ...(user?.activity ?? [])],
    ...(bundlesAtStart ? { workflowModules: [...(traced?.interceptors?.workflowModules ?? []), ...(user?.workflowModules ?? [])] } : {}),
  };
}

export function workerSinks(user: WorkerOptions['sinks'], traced: Traced | undefined): WorkerOptions['sinks'] {
  return { ...durableMcpSinks(), ...traced?.sinks, ...user };
}
