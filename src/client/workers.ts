/**
 * Whether a worker takes a workflow's work, for the client's queries and answers: refused at once when no worker polls
 * the task queue, and a missed deadline named (the workflow task that keeps failing, or no worker answered).
 */
import type { Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { isDeadlineExceeded, NoWorkerError, WorkflowTaskFailingError } from './errors.js';
import { workerPolls } from './listing.js';

/**
 * Run `fn` with a gRPC deadline; a missed deadline becomes a NoWorkerError naming the task queue.
 * `unconfirmed` is added to the error when a missed deadline may leave work behind (an update a worker may still apply).
 */
export async function withWorker<R>(
  client: Client,
  workflowId: string,
  taskQueue: string,
  what: string,
  timeoutMs: number,
  fn: () => Promise<R>,
  hint = '',
  unconfirmed = '',
): Promise<R> {
  if ((await workerPolls(client, taskQueue)) === false)
    throw new NoWorkerError(workflowId, taskQueue, what, 'no worker has polled its task queue recently', hint);
  const deadline = Date.now() + timeoutMs;
  try {
    return await client.withDeadline(deadline, fn);
  } catch (err) {
    // The deadline shows as DEADLINE_EXCEEDED, or as CANCELLED once it has passed.
    if (isDeadlineExceeded(err) || Date.now() >= deadline) {
      const failing = await failingWorkflowTask(client, workflowId);
      if (failing) throw new WorkflowTaskFailingError(workflowId, taskQueue, what, failing.attempt, failing.message);
      throw new NoWorkerError(workflowId, taskQueue, what, `no worker answered within ${Math.round(timeoutMs / 1000)} s${unconfirmed}`, hint);
    }
    throw err;
  }
}

/** When the workflow's task has failed and is being retried: the attempt, and the message of its last WorkflowTaskFailed event. */
async function failingWorkflowTask(client: Client, workflowId: string): Promise<{ attempt: number; message: string } | undefined> {
  try {
    const namespace = client.options.namespace;
    const execution = { workflowId };
    const described = await client.workflowService.describeWorkflowExecution({ namespace, execution });
    const attempt = described.pendingWorkflowTask?.attempt ?? 0;
    if (attempt < 2) return undefined;
    const res = await client.workflowService.getWorkflowExecutionHistoryReverse({ namespace, execution, maximumPageSize: 100 });
    const failure = res.history?.events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure;
    // With a codec the message is in the failure's encoded attributes (dataConverterOf): decoded, when this process has the key.
    const decoded = await decodeOptionalFailureToOptionalError(client.options.loadedDataConverter, failure).catch(() => undefined);
    return { attempt, message: decoded?.message || failure?.message || '(no message)' };
  } catch {
    return undefined;
  }
}
