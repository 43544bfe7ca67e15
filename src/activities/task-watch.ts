/**
 * MCP Tasks, 2026-07-28 extension (docs/tasks.md): `watchMcpTask` sends a task's answers (`tasks/update`) and polls
 * `tasks/get` at the server's `pollIntervalMs` on a leased session, heartbeating the task id and status, until the
 * task asks (`input_required`: its requests, checked like a round's), ends (`completed`: the result, `isError` kept;
 * `failed`, `cancelled`: a typed failure carrying the server's error), or `capMs` passed (`working`: the workflow
 * schedules the next watch, so a long task costs a few history events per cap). The task's status and
 * `statusMessage` are the call's progress. `cancelMcpTask` sends `tasks/cancel` (the workflow's cleanup).
 * A new worker re-attaches with the task id the workflow recorded: `tools/call` is never sent again.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureTypes } from '../contract/index.js';
import { toToolResult, type ModernTask } from '../mcp/index.js';
import { heartbeatEvery, workerFeatures, type ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import { completedOutcome, inputRequiredOutcome, taskHandle } from './outcome.js';
import { progressReporter } from './progress.js';
import type { CancelMcpTaskInput, WatchMcpTaskInput, WatchMcpTaskOutcome } from './types.js';

/** The poll interval is kept within these bounds, whatever the server suggests (ms). */
export const MIN_TASK_POLL_MS = 100;
export const MAX_TASK_POLL_MS = 60_000;
/** Timeout of one `tasks/get`, `tasks/update` or `tasks/cancel` (ms). */
const TASK_REQUEST_TIMEOUT_MS = 30_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export function watchMcpTaskActivity(deps: ActivityDeps) {
  return async function watchMcpTask(input: WatchMcpTaskInput): Promise<WatchMcpTaskOutcome> {
    const ctx = Context.current();
    const { taskId } = input;
    const started = Date.now();
    let status = 'attaching';
    const beat = () => ctx.heartbeat({ taskId, status });
    beat();
    const beats = setInterval(beat, heartbeatEvery(ctx));
    const { workflowId, runId } = ctx.info.workflowExecution ?? { workflowId: '', runId: undefined };
    const progress = progressReporter(deps, ctx, workflowId, runId, input.callId);
    let lease;
    try {
      try {
        lease = await deps.pool.lease(input.server, ctx.cancellationSignal, input.principal !== undefined ? { principal: input.principal } : {});
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        failure(err, input.server);
      }
      const requests = lease.session.tasks;
      let lastMessage = '';
      let polls = 0;
      try {
        if (input.inputResponses && Object.keys(input.inputResponses).length > 0) {
          await requests.update(taskId, input.inputResponses, TASK_REQUEST_TIMEOUT_MS, ctx.cancellationSignal);
        }
        let interval = input.pollIntervalMs;
        for (;;) {
          const task: ModernTask = await requests.get(taskId, TASK_REQUEST_TIMEOUT_MS, ctx.cancellationSignal);
          polls++;
          status = task.status;
          beat();
          const message = task.statusMessage ? `${task.status}: ${task.statusMessage}` : task.status;
          if (message !== lastMessage) {
            lastMessage = message;
            progress.report({ progress: polls, message });
          }
          if (task.pollIntervalMs !== undefined) interval = task.pollIntervalMs;
          const where = `server "${input.server}": task ${taskId} of tool "${input.tool}"`;
          switch (task.status) {
            case 'completed':
              await lease.release();
              return completedOutcome(input, toToolResult(task.result as Parameters<typeof toToolResult>[0]));
            case 'failed': {
              await lease.release();
              const e = task.error;
              const why = e ? `: ${e.message ?? 'no message'} (JSON-RPC ${e.code ?? 'no code'})` : task.statusMessage ? `: ${task.statusMessage}` : '';
              throw ApplicationFailure.create({
                message: `${where} failed${why}`,
                type: FailureTypes.TaskFailed,
                nonRetryable: true,
                details: [{ taskId, error: e ?? null, statusMessage: task.statusMessage ?? null }],
              });
            }
            case 'cancelled':
              await lease.release();
              throw ApplicationFailure.create({
                message: `${where} was cancelled by the server${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
                type: FailureTypes.TaskCancelled,
                nonRetryable: true,
                details: [{ taskId, statusMessage: task.statusMessage ?? null }],
              });
            case 'input_required': {
              await lease.release();
              const round = inputRequiredOutcome(input, { kind: 'input_required', inputRequests: task.inputRequests ?? {} }, workerFeatures(deps));
              return { status: 'input_required', task: taskHandle(task), inputRequests: round.inputRequests };
            }
            default:
              if (Date.now() - started >= input.capMs) {
                await lease.release();
                return { status: 'working', task: taskHandle(task) };
              }
          }
          await sleep(Math.min(MAX_TASK_POLL_MS, Math.max(MIN_TASK_POLL_MS, interval ?? 1000)), ctx.cancellationSignal);
          if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        }
      } catch (err) {
        void lease.release({ discard: true });
        if (err instanceof ApplicationFailure) throw err;
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        failure(err, input.server);
      }
    } finally {
      clearInterval(beats);
      progress.stop();
    }
  };
}

export function cancelMcpTaskActivity(deps: ActivityDeps) {
  return async function cancelMcpTask(input: CancelMcpTaskInput): Promise<void> {
    const ctx = Context.current();
    let lease;
    try {
      lease = await deps.pool.lease(input.server, ctx.cancellationSignal, input.principal !== undefined ? { principal: input.principal } : {});
    } catch (err) {
      failure(err, input.server);
    }
    try {
      await lease.session.tasks.cancel(input.taskId, TASK_REQUEST_TIMEOUT_MS);
      await lease.release();
    } catch (err) {
      void lease.release({ discard: true });
      failure(err, input.server);
    }
  };
}
