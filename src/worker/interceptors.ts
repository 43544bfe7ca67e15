/**
 * The worker's interceptors and sinks: durable-mcp's metrics sinks, OpenTelemetry's interceptors when tracing is on
 * (before the user's own), and workflow interceptor modules only where the worker bundles workflow code at start (a
 * prebuilt bundle has its own built in: the traced one when tracing is on).
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { durableMcpSinks } from '../telemetry/metrics.js';

type Traced = Pick<WorkerOptions, 'interceptors' | 'sinks'>;

export function workerInterceptors(user: WorkerOptions['interceptors'], traced: Traced | undefined, bundlesAtStart: boolean): WorkerOptions['interceptors'] {
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
