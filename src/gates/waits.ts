/**
 * The workflow's side of the gates (./table.ts): for each gate an outcome opens, how the call waits on it. A wait is a
 * chain of steps the call loop runs (workflows/tool-call/index.ts): a condition to wait for, an activity (or timer) to
 * run, then either `again` (run the activity again, with what the gate decided) or `result` (the call ends). Every
 * `await` stays in the loop itself: opening a gate and each `then` are synchronous, and a `run` returns the promise of
 * the activity or timer it starts, so the commands and their order are those the recorded histories ran.
 * Deterministic: workflow APIs only.
 */
import type { ToolResult } from '../contract/index.js';
import type { CallOutcome } from '../workflows/tool-call/outcome.js';
import type { ElicitationHost, RoundWait } from '../workflows/host/index.js';
import { approvalDecision, recordApproval, type Approved } from '../workflows/tool-call/approval.js';
import { recordRelease, retryAfterUrls } from '../workflows/tool-call/legacy.js';
import { nextRound, pauseBeforeRetry, startRound, type NextRound } from '../workflows/tool-call/modern.js';
import { followTask, newTaskWait } from '../workflows/tool-call/tasks.js';
import { loginFailure, loginRequestOf, MAX_LOGIN_ROUNDS, requestLogin, tooManyLogins, useLoginWaits } from '../workflows/login/waiting.js';
import { gateOf, type Gates, type WaitingKind } from './table.js';

/** What the gate decided for the next run of the activity: approved arguments, or the next round's input (else: run again as before). */
export interface Again {
  approved?: Approved;
  next?: NextRound;
}

/** One step of a gate's wait. */
export type Step =
  { until: () => boolean; then: () => Step } | { run: () => Promise<unknown>; then: (value: unknown) => Step } | { again: Again } | { result: ToolResult };

/** A step that runs `start` (an activity, a timer, a helper's promise) and goes on with its value. */
function run<T>(start: () => Promise<T>, then: (value: T) => Step): Step {
  return { run: start, then: then as (value: unknown) => Step };
}

/** The call a gate waits for: its input, the host, and the state its gates share across its runs. */
export interface GateContext {
  host: ElicitationHost;
  input: { server: string; tool: string; arguments?: Record<string, unknown>; heartbeatTimeout?: unknown; auth?: { principal?: string } };
  call: { callId: string; expiresInMs: number; continueAsNew?: () => boolean };
  /** The round about to run (1-based), the most rounds, the logins in a row, the approval the call runs with. */
  state: { round: number; maxRounds: number; logins: number; approved?: Approved };
}

type OutcomeOf<K extends WaitingKind> = Extract<CallOutcome, { status: (typeof Gates)[K]['status'] }>;
/** How a call waits on one gate: open it on the activity's outcome (synchronously), the steps follow. */
type GateWait<K extends WaitingKind> = (ctx: GateContext, outcome: OutcomeOf<K>) => Step;

/** Wait for one request of the call to be resolved (answered, expired or withdrawn), marked as what the call waits for. */
function untilResolved(ctx: GateContext, id: string, then: () => Step): Step {
  ctx.host.requests.setWaiting(ctx.call.callId, id);
  return {
    until: () => ctx.host.requests.isResolved(id),
    then: () => {
      ctx.host.requests.setWaiting(ctx.call.callId, undefined);
      return then();
    },
  };
}

/** The wait for a round's requests (one after the other), then the next round's input; carried across continue-as-new. */
export function roundSteps(ctx: GateContext, wait: RoundWait): Step {
  const { host, call, input } = ctx;
  const requests = wait.requests;
  // The round's answers are read before the next round's activity is scheduled: the host keeps a call's resolved
  // answers until the call finishes (bounded state drops them only in finishCall).
  const next = (): Step => {
    const responses = host.roundResponses(requests);
    return { again: { next: wait.form === 'url-error' ? retryAfterUrls(host, input, requests, responses) : nextRound(wait, responses) } };
  };
  if (requests.length === 0) return run(pauseBeforeRetry, next);
  const from = (i: number): Step => {
    for (; i < requests.length; i++) {
      const id = requests[i]!.id;
      if (host.requests.isResolved(id)) continue;
      // The round's state goes with the wait: a continue-as-new now resumes the call at this round.
      host.requests.setWaiting(call.callId, id, { round: wait });
      const after = i + 1;
      return { until: () => host.requests.isResolved(id), then: () => from(after) };
    }
    host.requests.setWaiting(call.callId, undefined);
    return next();
  };
  return from(0);
}

/** Each waiting gate's wait: a gate without one (or the reverse) does not compile. */
export const gateWaits: { [K in WaitingKind]: GateWait<K> } = {
  // A person approves the call first: nothing ran, nothing is held while they decide.
  approval: (ctx, outcome) => {
    const id = recordApproval(ctx.host, ctx.call.callId, outcome);
    return untilResolved(ctx, id, () => {
      const decided = approvalDecision(ctx.host, ctx.input, outcome);
      return 'result' in decided ? decided : { again: { approved: decided.approved } };
    });
  },
  // A server behind OAuth needs a (new) token: ask its login (one per server and principal), wait for it to settle (a
  // refresh, or a person signing in: nothing is held meanwhile), then run the call again.
  login: (ctx, outcome) => {
    if (++ctx.state.logins > MAX_LOGIN_ROUNDS) throw tooManyLogins(ctx.input.server, outcome.login.reason);
    const waits = useLoginWaits();
    const { loginId } = outcome.login;
    const seen = waits.count(loginId);
    return run(
      () => requestLogin(loginRequestOf(outcome, ctx.call.expiresInMs)),
      (asked): Step =>
        asked.status !== 'waiting'
          ? { again: {} }
          : {
              until: () => waits.count(loginId) > seen,
              then: () => {
                const failure = waits.last(loginId)?.failure;
                if (failure) throw loginFailure(failure);
                return { again: {} };
              },
            },
    );
  },
  // The server asked in a round: record its requests, wait for their answers, then the next round.
  round: (ctx, outcome) => roundSteps(ctx, startRound(ctx.host, ctx.input, ctx.call.callId, ctx.state.round, ctx.state.maxRounds, outcome)),
  // MCP Tasks (2026-07-28 extension): the task id is in history; the task is watched, never called again.
  task: (ctx, outcome) =>
    run(
      () => followTask(ctx.host, ctx.call.callId, ctx.input, newTaskWait(outcome, ctx.state.approved?.metadata), ctx.call),
      (result) => ({ result }),
    ),
  // Released: nothing is held while the person thinks. Wait for the answer (or expiry), then run again.
  release: (ctx, outcome) => untilResolved(ctx, recordRelease(ctx.host, ctx.call.callId, outcome.request), () => ({ again: {} })),
};

/** Open the gate the activity's outcome names. */
export function openGate(ctx: GateContext, outcome: Exclude<CallOutcome, { status: 'completed' }>): Step {
  const kind = gateOf(outcome.status);
  return (gateWaits[kind] as GateWait<WaitingKind>)(ctx, outcome as never);
}
