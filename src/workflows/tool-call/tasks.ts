/**
 * MCP Tasks, 2026-07-28 extension, in the call loop (docs/tasks.md): the activity returned the server's task, whose
 * id is now in history (the activity's result) before anything else, so a re-run never sends `tools/call` again.
 * The task is watched by `watchMcpTask` activities (each polls at the server's `pollIntervalMs`, heartbeating, and
 * returns at `input_required`, a terminal status or after TASK_WATCH_CAP_MS: a long task costs three history events
 * per cap). Each new input request (keys deduplicated for the task's lifetime) is a durable Request of the round;
 * the answers go out with the next watch (`tasks/update`). The task's `ttlMs` bounds the wait (workflow time): past
 * it the call fails `TaskExpired`. A cancelled workflow (or an expired task) sends `tasks/cancel`.
 *
 * No version entry: only a run whose `callMcpTool` returned `status: "task"` takes this path, and no history before
 * it has one (such a result failed the activity as a ProtocolViolation then). Deterministic: workflow APIs only.
 */
import { ApplicationFailure, CancellationScope, condition, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import type { ToolResult } from '../../contract/index.js';
import type { Activities } from '../../activities/index.js';
import type { ElicitationHost } from '../host/index.js';
import { durationOption } from '../input.js';
import type { CallOutcome } from './outcome.js';

/** A `watchMcpTask` returns `working` after this long, so a task that works for days costs a few events an hour. */
export const TASK_WATCH_CAP_MS = 10 * 60 * 1000;
/** Pause before polling again when the server still lists only input requests already answered (its ack is eventually consistent). */
const ANSWERED_PAUSE_MS = 1_000;

export type TaskOutcome = Extract<CallOutcome, { status: 'task' }>;

/** Follow the server's task to its end: its result, or a typed failure. */
export async function followTask(
  host: ElicitationHost,
  callId: string,
  input: { server: string; tool: string; heartbeatTimeout?: unknown; auth?: { principal?: string } },
  outcome: TaskOutcome,
): Promise<ToolResult> {
  const { server, tool } = input;
  const { taskId } = outcome.task;
  const heartbeatTimeoutMs = durationOption('heartbeatTimeout', input.heartbeatTimeout) ?? 30_000;
  const { watchMcpTask } = proxyActivities<Activities>({
    startToCloseTimeout: TASK_WATCH_CAP_MS + 2 * 60_000,
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });
  const { cancelMcpTask } = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 3 } });
  const principal = input.auth?.principal;
  // The task's ttlMs, from when the workflow learned of it (workflow time: time-skipping moves it too).
  const deadline = outcome.task.ttlMs === null ? undefined : Date.now() + outcome.task.ttlMs;
  const left = () => (deadline === undefined ? undefined : Math.max(0, deadline - Date.now()));
  const expired = () =>
    ApplicationFailure.create({
      message: `server "${server}": task ${taskId} of tool "${tool}" did not end within its ttlMs (${outcome.task.ttlMs} ms)`,
      type: FailureTypes.TaskExpired,
      nonRetryable: true,
      details: [{ taskId, ttlMs: outcome.task.ttlMs }],
    });
  /** Every input request key the task asked (keys are unique over a task's lifetime): each is asked once. */
  const asked = new Set<string>();
  let pollIntervalMs = outcome.task.pollIntervalMs;
  let responses: Record<string, unknown> | undefined;
  let round = 0;
  try {
    for (;;) {
      const watched = await watchMcpTask({
        server,
        tool,
        callId,
        taskId,
        ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
        ...(responses ? { inputResponses: responses } : {}),
        capMs: TASK_WATCH_CAP_MS,
        ...(principal !== undefined ? { principal } : {}),
      });
      responses = undefined;
      if (watched.status === 'completed') return watched.result;
      if (watched.task.pollIntervalMs !== undefined) pollIntervalMs = watched.task.pollIntervalMs;
      if (left() === 0) throw expired();
      if (watched.status === 'working') continue;
      const fresh = Object.fromEntries(Object.entries(watched.inputRequests).filter(([key]) => !asked.has(key)));
      if (Object.keys(fresh).length === 0) {
        await sleep(Math.max(ANSWERED_PAUSE_MS, pollIntervalMs ?? 0));
        continue;
      }
      for (const key of Object.keys(fresh)) asked.add(key);
      // Not `setWaiting`: a call marked waiting may continue as new and then run `callMcpTool` again (a second
      // tools/call); a task's wait stays in this run (its history: a few events per question and per watch cap).
      const requests = host.registerRound(callId, ++round, fresh);
      for (const r of requests) {
        if (host.requests.isResolved(r.id)) continue;
        const remaining = left();
        const resolved =
          remaining === undefined
            ? await condition(() => host.requests.isResolved(r.id)).then(() => true)
            : await condition(() => host.requests.isResolved(r.id), remaining);
        if (!resolved) throw expired();
      }
      responses = host.roundResponses(requests);
    }
  } catch (err) {
    const typeOf = (err as { type?: unknown })?.type;
    if (isCancellation(err) || typeOf === FailureTypes.TaskExpired) {
      // The server should stop working for nobody (best effort: the call fails either way).
      await CancellationScope.nonCancellable(() => cancelMcpTask({ server, taskId, ...(principal !== undefined ? { principal } : {}) })).catch(() => undefined);
    }
    throw err;
  }
}
