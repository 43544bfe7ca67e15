/**
 * The one listing of pending requests across a namespace: every workflow awaiting input (the
 * DurableMcpAwaitingInput search attribute), each asked for its `pendingDetails` in parallel with a short
 * deadline, after a check that a worker polls its task queue. A workflow that cannot be queried is listed with
 * the reason, never dropped. DurableMcpClient, the CLI's `pending` and the inbox all list through here.
 */
import type { Client } from '@temporalio/client';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, pendingDetailsQuery, type PendingRequestDetails } from '../workflows/messages.js';
import { causeMessages } from '../contract/causes.js';
import { isDeadlineExceeded } from './errors.js';

/** The deadline of each workflow's `pendingDetails` query when listing (3 s). */
export const LIST_QUERY_TIMEOUT_MS = 3_000;

export interface AwaitingWorkflow {
  workflowId: string;
  runId: string;
  type: string;
  startTime: Date;
  pending: PendingRequestDetails[];
  /** Set when the workflow could not be queried: why (e.g. no worker polls its task queue). */
  unreachable?: string;
}

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
      const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : now;
      return now - ms <= freshMs;
    });
  } catch {
    return undefined;
  }
}

/**
 * Every running workflow of the client's namespace that awaits input, with its pending requests, queried in
 * parallel with a deadline each (`timeoutMs`, default 3 s). The caller checks that the search attribute is
 * registered (DurableMcpClient.listAwaitingInput does).
 */
export async function listAwaitingInput(client: Client, options: { timeoutMs?: number } = {}): Promise<AwaitingWorkflow[]> {
  const found: Array<{ workflowId: string; runId: string; type: string; startTime: Date; taskQueue: string }> = [];
  for await (const wf of client.workflow.list({ query: `${AWAITING_INPUT_SEARCH_ATTRIBUTE} = true AND ExecutionStatus = 'Running'` })) {
    found.push({ workflowId: wf.workflowId, runId: wf.runId, type: wf.type, startTime: wf.startTime, taskQueue: wf.taskQueue });
  }
  const polled = new Map<string, Promise<boolean | undefined>>();
  const timeoutMs = options.timeoutMs ?? LIST_QUERY_TIMEOUT_MS;
  return Promise.all(
    found.map(async (wf) => {
      const row: AwaitingWorkflow = { workflowId: wf.workflowId, runId: wf.runId, type: wf.type, startTime: wf.startTime, pending: [] };
      if (!polled.has(wf.taskQueue)) polled.set(wf.taskQueue, workerPolls(client, wf.taskQueue));
      if ((await polled.get(wf.taskQueue)) === false) {
        row.unreachable = `no worker polls task queue "${wf.taskQueue}"`;
        return row;
      }
      const deadline = Date.now() + timeoutMs;
      try {
        row.pending = await client.withDeadline(deadline, () => client.workflow.getHandle(wf.workflowId, wf.runId).query(pendingDetailsQuery));
      } catch (err) {
        row.unreachable =
          isDeadlineExceeded(err) || Date.now() >= deadline
            ? `no worker answered within ${Math.round(timeoutMs / 1000)} s (task queue "${wf.taskQueue}")`
            : `query failed: ${causeMessages(err)}`;
      }
      return row;
    }),
  );
}
