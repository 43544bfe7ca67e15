/**
 * Whether a worker takes a workflow's work. `workerPolls` asks Temporal whether a worker polls a task queue (`pollsOf`:
 * the same, kept POLLS_KEPT_MS for the listing's pages); `withWorker` runs a client's query or answer with a deadline,
 * refused at once when no worker polls, and names a missed deadline (the workflow task that keeps failing, or no worker
 * answered); `resendUnprocessed` sends again an update that a worker left unprocessed.
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { isDeadlineExceeded, noWorker, workflowTaskFailing } from './errors.js';
import { isNoPoller, isWorkflowTaskFailedState } from './temporal-errors.js';
import { tsToDate } from './visibility.js';

/**
 * How recent a worker's last poll must be for it to count as polling. Temporal records each poll request's start
 * (`lastAccessTime`); a poll lasts up to a minute, so an age under a minute is a live idle worker, and over a minute
 * means the worker stopped or is at capacity (Temporal's own reading, `temporal task-queue describe`; a stopped worker
 * stays listed for 5 minutes). A minute, and 10 s for the round trip and the clocks of client and server.
 */
export const POLLER_FRESH_MS = 70_000;

/** Whether a worker polls `taskQueue`: its last poll within `freshMs` (default POLLER_FRESH_MS). Undefined when the server does not say. */
export async function workerPolls(client: Client, taskQueue: string, freshMs = POLLER_FRESH_MS): Promise<boolean | undefined> {
  try {
    const res = await client.workflowService.describeTaskQueue({ namespace: client.options.namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 });
    const now = Date.now();
    return (res.pollers ?? []).some((p) => {
      const t = p.lastAccessTime;
      const ms = t ? tsToDate(t).getTime() : now;
      return now - ms <= freshMs;
    });
  } catch {
    return undefined;
  }
}

/** Whether a worker polls each task queue, as last asked (the listing keeps one in its ListingSupport). */
export type PollsCache = Map<string, { at: number; polls: Promise<boolean | undefined> }>;

/** How long the listing keeps what it learnt of a task queue's pollers (10 s; a worker is seen polling once a minute). */
export const POLLS_KEPT_MS = 10_000;

/** Whether a worker polls `taskQueue`, from `cache` when it was asked within POLLS_KEPT_MS. */
export function pollsOf(client: Client, cache: PollsCache, taskQueue: string): Promise<boolean | undefined> {
  const known = cache.get(taskQueue);
  if (known && Date.now() - known.at < POLLS_KEPT_MS) return known.polls;
  const polls = workerPolls(client, taskQueue);
  if (cache.size > 1_000) cache.clear();
  cache.set(taskQueue, { at: Date.now(), polls });
  return polls;
}

/**
 * Run `fn` with a gRPC deadline; a missed deadline, or Temporal's "no poller seen", becomes a NoWorker ClientError naming the
 * task queue; a workflow task that fails (retried, or Temporal's "Workflow Task in failed state") a WorkflowTaskFailing one,
 * with the failure's message, at once.
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
  if ((await workerPolls(client, taskQueue)) === false) throw noWorker(workflowId, taskQueue, what, 'no worker has polled its task queue recently', hint);
  // A task that failed and is retried (attempt 2 or more) is refused now: Temporal would hold the query or update until
  // the deadline, or refuse it, depending on when it comes between the task's attempts.
  const failingNow = await failingWorkflowTask(client, workflowId);
  if (failingNow) throw workflowTaskFailing(workflowId, taskQueue, what, failingNow.attempt, failingNow.message);
  const deadline = Date.now() + timeoutMs;
  try {
    return await client.withDeadline(deadline, fn);
  } catch (err) {
    // Temporal saw the worker go (a worker that stops says so): it refuses the query at once.
    if (isNoPoller(err)) throw noWorker(workflowId, taskQueue, what, 'no worker has polled its task queue recently', hint);
    // Temporal refuses a query at once while the workflow's task fails ("Workflow Task in failed state"): say why it fails.
    if (isWorkflowTaskFailedState(err)) {
      const failing = await failingWorkflowTask(client, workflowId, 1);
      throw workflowTaskFailing(workflowId, taskQueue, what, failing?.attempt ?? 1, failing?.message ?? 'Temporal: Workflow Task in failed state');
    }
    // The deadline shows as DEADLINE_EXCEEDED, or as CANCELLED once it has passed.
    if (isDeadlineExceeded(err) || Date.now() >= deadline) {
      const failing = await failingWorkflowTask(client, workflowId);
      if (failing) throw workflowTaskFailing(workflowId, taskQueue, what, failing.attempt, failing.message);
      throw noWorker(workflowId, taskQueue, what, `no worker answered within ${Math.round(timeoutMs / 1000)} s${unconfirmed}`, hint);
    }
    throw err;
  }
}

/**
 * When the workflow's task has failed and is being retried (its attempt at least `minAttempt`, default 2): the attempt,
 * and the message of its last WorkflowTaskFailed event.
 */
export async function failingWorkflowTask(client: Client, workflowId: string, minAttempt = 2): Promise<{ attempt: number; message: string } | undefined> {
  try {
    const namespace = client.options.namespace;
    const execution = { workflowId };
    const described = await client.workflowService.describeWorkflowExecution({ namespace, execution });
    const attempt = described.pendingWorkflowTask?.attempt ?? 0;
    if (attempt < minAttempt) return undefined;
    const res = await client.workflowService.getWorkflowExecutionHistoryReverse({ namespace, execution, maximumPageSize: 100 });
    const failure = res.history?.events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure;
    // With a codec the message is in the failure's encoded attributes (dataConverterOf): decoded, when this process has the key.
    const decoded = await decodeOptionalFailureToOptionalError(client.options.loadedDataConverter, failure).catch(() => undefined);
    return { attempt, message: decoded?.message || failure?.message || '(no message)' };
  } catch {
    return undefined;
  }
}

/** What became of a workflow's first workflow task: a worker completed it, it failed (the decoded message), or neither yet. */
export type FirstWorkflowTask = { state: 'completed' } | { state: 'failed'; message: string } | { state: 'waiting' };

/**
 * Read the workflow's history every `pollMs` (default 200 ms) until a workflow task completed or failed, at most
 * `timeoutMs` (default 10 s): a worker that lacks the workflow type fails its first task at once
 * ("no such function is exported by the workflow bundle") and Temporal then retries it without a new event.
 */
export async function firstWorkflowTask(client: Client, workflowId: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<FirstWorkflowTask> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const namespace = client.options.namespace;
  for (;;) {
    const res = await client.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId }, maximumPageSize: 50 });
    for (const e of res.history?.events ?? []) {
      if (e.workflowTaskCompletedEventAttributes) return { state: 'completed' };
      const failure = e.workflowTaskFailedEventAttributes?.failure;
      if (e.workflowTaskFailedEventAttributes) {
        const decoded = await decodeOptionalFailureToOptionalError(client.options.loadedDataConverter, failure).catch(() => undefined);
        return { state: 'failed', message: decoded?.message || failure?.message || '(no message)' };
      }
      // Closed before any task completed (terminated, timed out): nothing more to wait for.
      if (e.workflowExecutionTerminatedEventAttributes || e.workflowExecutionTimedOutEventAttributes) return { state: 'completed' };
    }
    if (Date.now() >= deadline) return { state: 'waiting' };
    await new Promise((r) => setTimeout(r, options.pollMs ?? 200));
  }
}

/**
 * Temporal's rejection of an update on a worker's behalf: the worker completed the workflow task that carried it without
 * accepting or rejecting it (the failure type `UnprocessedUpdate`, "Workflow Update is rejected because it wasn't
 * processed by worker"). The workflow never saw the update, so it can be sent again without being applied twice.
 */
export function isUnprocessedUpdate(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && (err.cause as { type?: unknown } | undefined)?.type === 'UnprocessedUpdate';
}

/** How many times an update is sent in all when a worker leaves it unprocessed (`resendUnprocessed`). */
export const UNPROCESSED_SENDS = 4;

/**
 * Send an update with `send`, and again (up to UNPROCESSED_SENDS times in all, 100, 200, 400 ms apart) while Temporal
 * rejects it because a worker left it unprocessed (isUnprocessedUpdate). Seen once in CI, right after a worker's SIGKILL
 * and restart: without it the person's answer was refused (issue 44). Any other outcome is returned or thrown as is;
 * so is the last rejection (a worker that never processes updates: an SDK too old for them).
 */
export async function resendUnprocessed<R>(send: () => Promise<R>): Promise<R> {
  for (let sent = 1; ; sent++) {
    try {
      return await send();
    } catch (err) {
      if (!isUnprocessedUpdate(err) || sent >= UNPROCESSED_SENDS) throw err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** (sent - 1)));
    }
  }
}
