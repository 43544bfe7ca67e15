/**
 * MCP Tasks, 2026-07-28 extension, in the call loop (docs/tasks.md): the activity returned the server's task, whose
 * id is now in history (the activity's result) before anything else, so a re-run never sends `tools/call` again.
 * The task is watched by `watchMcpTask` activities (each polls at the server's `pollIntervalMs`, heartbeating, and
 * returns at `input_required`, a terminal status or after TASK_WATCH_CAP_MS: a long task costs three history events
 * per cap). Each new input request (keys deduplicated for the task's lifetime) is a durable Request of the round;
 * the answers go out with the next watch (`tasks/update`). The task's `ttlMs` bounds the wait (workflow time): past
 * it the call fails `TaskExpired`. A cancelled workflow (or an expired task) sends `tasks/cancel`.
 *
 * Continue-as-new: between two watches, and while its questions wait for answers, the call's task state (`TaskWait`:
 * the task, its deadline, the keys asked, the round waited on) is in the host, so `mcpToolCall` may continue as new
 * then; the next run goes on watching the same task (Versions.taskContinueAsNew). Deterministic: workflow APIs only.
 */
import { ApplicationFailure, CancellationScope, condition, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import type { ToolResult } from '../../contract/index.js';
import type { ElicitationHost } from '../../workflows/host/index.js';
import { registerRound, roundAnswers } from '../round/workflow.js';
import type { TaskWait } from './messages.js';
import { durationOption } from '../../workflows/input.js';
import { since, Versions } from '../../workflows/versions.js';
import type { CallOutcome } from '../../workflows/tool-call/outcome.js';
import { loginForTask } from './login.js';
import type { DurableMcpActivities } from '../../contract/activities.js';
import { run, type GateWait } from '../step.js';

/** A `watchMcpTask` returns `working` after this long, so a task that works for days costs a few events an hour. */
export const TASK_WATCH_CAP_MS = 10 * 60 * 1000;
/** Pause before polling again when the server still lists only input requests already answered (its ack is eventually consistent). */
const ANSWERED_PAUSE_MS = 1_000;

export type TaskOutcome = Extract<CallOutcome, { status: 'task' }>;

/** The state of a task the workflow just learned of (its `ttlMs` counts from now, workflow time). */
export function newTaskWait(outcome: TaskOutcome, metadata?: Record<string, unknown>): TaskWait {
  const { ttlMs } = outcome.task;
  return { task: outcome.task, ...(ttlMs !== null ? { deadline: Date.now() + ttlMs } : {}), asked: [], round: 0, ...(metadata ? { metadata } : {}) };
}

/** How a call follows its task: `continueAsNew()` says the run should continue as new now (only `mcpToolCall` can). */
export interface FollowOptions {
  continueAsNew?: () => boolean;
}

/** Follow the server's task to its end: its result (with the state's metadata), or a typed failure. */
export async function followTask(
  host: ElicitationHost,
  callId: string,
  input: { server: string; tool: string; heartbeatTimeout?: unknown; auth?: { principal?: string } },
  start: TaskWait,
  options: FollowOptions = {},
): Promise<ToolResult> {
  const { server, tool } = input;
  const { taskId } = start.task;
  const heartbeatTimeoutMs = durationOption('heartbeatTimeout', input.heartbeatTimeout) ?? 30_000;
  const { watchMcpTask } = proxyActivities<DurableMcpActivities>({
    startToCloseTimeout: TASK_WATCH_CAP_MS + 2 * 60_000,
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });
  const { cancelMcpTask } = proxyActivities<DurableMcpActivities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 3 } });
  const principal = input.auth?.principal;
  // Older histories (before the version) never parked a task for continue-as-new.
  const carried = since(Versions.taskContinueAsNew);
  // A run resumed with the task's wait no longer waits once it watches (below): before the version, the wait it was
  // restored with stayed set during its first watch, and the run could continue as new while that watch ran.
  const watchEndsWait = carried && since(Versions.taskWatchEndsWait);
  const left = () => (state.deadline === undefined ? undefined : Math.max(0, state.deadline - Date.now()));
  const expired = () =>
    ApplicationFailure.create({
      message: `server "${server}": task ${taskId} of tool "${tool}" did not end within its ttlMs (${state.task.ttlMs} ms)`,
      type: FailureTypes.TaskExpired,
      nonRetryable: true,
      details: [{ taskId, ttlMs: state.task.ttlMs }],
    });
  const done = (result: ToolResult): ToolResult => (state.metadata ? { ...result, metadata: { ...result.metadata, ...state.metadata } } : result);
  let state = start;
  // A run parks only after a watch of its own: a run that continued as new always moves the task on first.
  let watchedHere = false;
  // Servers behind OAuth: the watches in a row that needed the login (./task-login.ts).
  let logins = 0;
  try {
    for (;;) {
      // The round's questions: wait for their answers (the task's state in the host meanwhile: the run may continue as new).
      for (const r of state.requests ?? []) {
        if (host.requests.isResolved(r.id)) continue;
        if (carried) host.waits.setTaskWaiting(callId, state);
        const remaining = left();
        const resolved =
          remaining === undefined
            ? await condition(() => host.requests.isResolved(r.id)).then(() => true)
            : await condition(() => host.requests.isResolved(r.id), remaining);
        host.waits.setTaskWaiting(callId, undefined);
        if (!resolved) throw expired();
      }
      if (carried && watchedHere && options.continueAsNew?.()) {
        // Between two watches, near the run's limits: park here; mcpToolCall continues as new with the task's state.
        host.waits.setTaskWaiting(callId, state);
        await condition(() => false);
      }
      const responses = state.requests ? roundAnswers(host, state.requests) : undefined;
      // A watch runs an activity: the call does not wait meanwhile, so the run never continues as new during it (the
      // next run would send the answers again, and the watch's result would be lost).
      if (watchEndsWait) host.waits.setTaskWaiting(callId, undefined);
      const watched = await watchMcpTask({
        server,
        tool,
        callId,
        taskId,
        ...(state.task.pollIntervalMs !== undefined ? { pollIntervalMs: state.task.pollIntervalMs } : {}),
        ...(responses ? { inputResponses: responses } : {}),
        capMs: TASK_WATCH_CAP_MS,
        ...(principal !== undefined ? { principal } : {}),
      });
      watchedHere = true;
      if (watched.status === 'completed') return done(watched.result);
      if (watched.status === 'login_required') {
        // A token refused mid-task: ask the login, then watch the same task again (the answers it did not send with it).
        if (watched.answersSent) state = { ...state, requests: undefined };
        if (!(await loginForTask(host, callId, server, watched, ++logins, left())) || left() === 0) throw expired();
        continue;
      }
      logins = 0;
      state = { ...state, task: { ...watched.task, pollIntervalMs: watched.task.pollIntervalMs ?? state.task.pollIntervalMs }, requests: undefined };
      if (left() === 0) throw expired();
      if (watched.status === 'working') continue;
      const fresh = Object.fromEntries(Object.entries(watched.inputRequests).filter(([key]) => !state.asked.includes(key)));
      if (Object.keys(fresh).length === 0) {
        await sleep(Math.max(ANSWERED_PAUSE_MS, state.task.pollIntervalMs ?? 0));
        continue;
      }
      const round = state.round + 1;
      // Not `setWaiting`: a call marked released would run `callMcpTool` again (a second tools/call) after continue-as-new.
      const requests = registerRound(host, callId, round, fresh);
      state = { ...state, asked: [...state.asked, ...Object.keys(fresh)], round, requests };
    }
  } catch (err) {
    host.waits.setTaskWaiting(callId, undefined);
    const typeOf = (err as { type?: unknown })?.type;
    if (isCancellation(err) || typeOf === FailureTypes.TaskExpired) {
      // The server should stop working for nobody (best effort: the call fails either way).
      await CancellationScope.nonCancellable(() => cancelMcpTask({ server, taskId, ...(principal !== undefined ? { principal } : {}) })).catch(() => undefined);
    }
    throw err;
  }
}

/** The task gate's wait (MCP Tasks, 2026-07-28 extension): the task id is in history; it is followed, never called again. */
export const taskWait: GateWait<'task'> = (ctx, outcome) =>
  run(
    () => followTask(ctx.host, ctx.call.callId, ctx.input, newTaskWait(outcome, ctx.state.approved?.metadata), ctx.call),
    (result) => ({ result }),
  );
