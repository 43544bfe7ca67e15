/**
 * MCP Tasks, 2026-07-28 extension (docs/tasks.md): `watchMcpTask` sends a task's answers (`tasks/update`) and polls
 * `tasks/get` at the server's `pollIntervalMs` on a leased session, heartbeating the task id and status, until the
 * task asks (`input_required`: its requests, checked like a round's), ends (`completed`: the result, `isError` kept;
 * `failed`, `cancelled`: a typed failure carrying the server's error), or `capMs` passed (`working`: the workflow
 * schedules the next watch, so a long task costs a few history events per cap). The task's status and
 * `statusMessage` are the call's progress. `cancelMcpTask` sends `tasks/cancel` (the workflow's cleanup).
 * A new worker re-attaches with the task id the workflow recorded: `tools/call` is never sent again.
 *
 * A server behind OAuth (docs/oauth.md): both send the call's login's token (as `callMcpTool` does, ./oauth.ts). A token
 * that expired, or that the server refuses (401, 403 insufficient_scope) during `tasks/update` or `tasks/get`, ends the
 * watch `login_required` (never a retried failure): the workflow asks the login, then watches the same task again.
 * A refused `tasks/cancel` is a failed cancel (best effort).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureTypes } from '../contract/index.js';
import { loginRequiredOf, toToolResult, type Lease, type ModernTask } from '../mcp/index.js';
import { heartbeatEvery, serverConfigOf, workerFeatures, type ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import { callLogin, loginLease, loginRequiredOutcome, oauthServer, type CallLogin } from './oauth.js';
import { completedOutcome, inputRequiredOutcome, taskHandle } from './outcome.js';
import { progressReporter } from './progress.js';
import type { CancelMcpTaskInput, WatchMcpTaskInput, WatchMcpTaskOutcome } from '../contract/activities.js';

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

/** The call's login when its server is behind OAuth (its token read into this worker's cache); undefined for any other server. */
async function taskLogin(deps: ActivityDeps, ctx: Context, server: string, principal: string | undefined) {
  const oauth = oauthServer(serverConfigOf(deps, server));
  return oauth ? callLogin(deps, ctx, oauth, principal) : undefined;
}

export function watchMcpTaskActivity(deps: ActivityDeps) {
  return async function watchMcpTask(input: WatchMcpTaskInput): Promise<WatchMcpTaskOutcome> {
    const ctx = Context.current();
    const { taskId } = input;
    const watch = { status: 'attaching', answersSent: false };
    const beat = () => ctx.heartbeat({ taskId, status: watch.status });
    beat();
    const beats = setInterval(beat, heartbeatEvery(ctx));
    const { workflowId, runId } = ctx.info.workflowExecution ?? { workflowId: '', runId: undefined };
    const progress = progressReporter(deps, ctx, workflowId, runId, input.callId);
    let login: CallLogin | undefined;
    // A token refused (401, 403 insufficient_scope): the login it wants, with whether the answers went out first.
    const loginNeeded = (err: unknown): WatchMcpTaskOutcome | undefined => {
      const needed = login ? loginRequiredOf(err, input.server, login.generation) : undefined;
      return needed ? { ...loginRequiredOutcome(deps, login!, input.server, needed), ...(watch.answersSent ? { answersSent: true } : {}) } : undefined;
    };
    let lease;
    try {
      const found = await taskLogin(deps, ctx, input.server, input.principal);
      login = found?.login;
      // An expired token goes to the login at once (a refresh needs no challenge), as a call's does.
      if (found?.expired) {
        return loginRequiredOutcome(deps, found.login, input.server, { reason: 'expired', generation: found.login.generation, challenge: {} });
      }
      try {
        lease = await deps.pool.lease(input.server, ctx.cancellationSignal, loginLease(login));
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const needed = loginNeeded(err);
        if (needed) return needed;
        failure(err, input.server);
      }
      try {
        return await pollTask(ctx, deps, input, lease, watch, (p) => progress.report(p), beat);
      } catch (err) {
        void lease.release({ discard: true });
        if (err instanceof ApplicationFailure) throw err;
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const needed = loginNeeded(err);
        if (needed) return needed;
        failure(err, input.server);
      }
    } finally {
      clearInterval(beats);
      // A task that asks waits (no more watch until it is answered): its last status (`input_required: …`) must reach
      // the workflow's progress, not be dropped by the once-a-second limit. One that ended sends nothing more.
      progress.stop({ flush: watch.status === 'input_required' });
    }
  };
}

/**
 * On the leased session: send the answers (`tasks/update`), then poll `tasks/get` until the task asks, ends, or `capMs`
 * passed. The session goes back to the pool when the watch ends with the task's state known; an error is the caller's.
 */
async function pollTask(
  ctx: Context,
  deps: ActivityDeps,
  input: WatchMcpTaskInput,
  lease: Lease,
  watch: { status: string; answersSent: boolean },
  report: (p: { progress: number; message: string }) => void,
  beat: () => void,
): Promise<WatchMcpTaskOutcome> {
  const { taskId } = input;
  const started = Date.now();
  const requests = lease.session.tasks;
  let lastMessage = '';
  let polls = 0;
  if (input.inputResponses && Object.keys(input.inputResponses).length > 0) {
    await requests.update(taskId, input.inputResponses, TASK_REQUEST_TIMEOUT_MS, ctx.cancellationSignal);
    watch.answersSent = true;
  }
  let interval = input.pollIntervalMs;
  for (;;) {
    const task: ModernTask = await requests.get(taskId, TASK_REQUEST_TIMEOUT_MS, ctx.cancellationSignal);
    polls++;
    watch.status = task.status;
    beat();
    const message = task.statusMessage ? `${task.status}: ${task.statusMessage}` : task.status;
    if (message !== lastMessage) {
      lastMessage = message;
      report({ progress: polls, message });
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
}

export function cancelMcpTaskActivity(deps: ActivityDeps) {
  return async function cancelMcpTask(input: CancelMcpTaskInput): Promise<void> {
    const ctx = Context.current();
    // Best effort with the call's login: a token refused here is a failed cancel (not retried, no login asked).
    const login = (await taskLogin(deps, ctx, input.server, input.principal))?.login;
    const fail = (err: unknown): never => {
      const needed = login ? loginRequiredOf(err, input.server, login.generation) : undefined;
      if (needed) {
        const message = `server "${input.server}": tasks/cancel of task ${input.taskId} refused: ${needed.message}`;
        throw ApplicationFailure.nonRetryable(message, FailureTypes.AuthorizationRequired);
      }
      failure(err, input.server);
    };
    let lease;
    try {
      lease = await deps.pool.lease(input.server, ctx.cancellationSignal, loginLease(login));
    } catch (err) {
      return fail(err);
    }
    try {
      await lease.session.tasks.cancel(input.taskId, TASK_REQUEST_TIMEOUT_MS);
      await lease.release();
    } catch (err) {
      void lease.release({ discard: true });
      fail(err);
    }
  };
}
