/**
 * The modern era (MCP 2026-07-28, multi round-trip requests) in the call loop: a `tools/call` that returns
 * `input_required` becomes a round of pending requests (one activity per round, nothing runs or is held while the
 * person answers), and the next round carries the answers and the `requestState` as given. A round with only
 * `requestState` (the server shed load) is retried after a short pause. The `-32042` form shares the round's
 * requests and wait (`retryAfterUrls` says what follows it). Deterministic: workflow APIs only.
 */
import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import type { ElicitParams, ElicitResult } from '../../contract/index.js';
import { mrtrRound } from '../../telemetry/workflow-metrics.js';
import type { ElicitationHost } from '../../workflows/host/index.js';
import type { InputRequiredOutcome } from '../../workflows/tool-call/outcome.js';
import { run, type GateContext, type GateWait, type Step } from '../step.js';
import type { NextRound, RoundKey, RoundWait } from './messages.js';
import { recordRound, roundResponses } from './record.js';

/** Default `maxRounds`. */
export const DEFAULT_MAX_ROUNDS = 10;
/** Pause before retrying a round that carried only `requestState` (the server shed load). */
export const REQUEST_STATE_ONLY_PAUSE_MS = 1_000;

/**
 * Record all the questions of one round as pending at once (idempotent: a round asked again derives the same ids and
 * finds them pending or answered). A task's questions are recorded so too.
 */
export function registerRound(host: ElicitationHost, callId: string, round: number, inputRequests: Record<string, { params: ElicitParams }>): RoundKey[] {
  return recordRound(callId, round, inputRequests, (request) => host.register(request, callId));
}

/** The round's answers as the server reads them (key → ElicitResult): expired or cancelled is `cancel`. */
export function roundAnswers(host: ElicitationHost, requests: RoundKey[]): Record<string, ElicitResult> {
  return roundResponses(requests, (id) => host.requests.answerFor(id));
}

/**
 * The activity returned `input_required` for round `round`: fail past `maxRounds`, else record the round's
 * requests as pending and return the wait for them.
 */
export function startRound(
  host: ElicitationHost,
  input: { server: string; tool: string },
  callId: string,
  round: number,
  maxRounds: number,
  outcome: InputRequiredOutcome,
): RoundWait {
  if (round >= maxRounds) {
    throw ApplicationFailure.nonRetryable(
      `tool "${input.tool}" of server "${input.server}" still required input after ${round} rounds (maxRounds ${maxRounds})`,
      FailureTypes.RoundLimitExceeded,
    );
  }
  const registered = registerRound(host, callId, round, outcome.inputRequests);
  mrtrRound(input.server, outcome.form === 'url-error' ? 'url-error' : registered.length === 0 ? 'request-state' : 'input');
  return { round, requests: registered, form: outcome.form, ...(outcome.requestState !== undefined ? { requestState: outcome.requestState } : {}) };
}

/** The pause before the next round of a round that asked nothing (`requestState` only: the server shed load). */
export function pauseBeforeRetry(): Promise<void> {
  return sleep(REQUEST_STATE_ONLY_PAUSE_MS);
}

/** The next round's input: the round's answers (if it asked any) and its `requestState` as the server gave it. */
export function nextRound(wait: RoundWait, responses: Record<string, ElicitResult>): NextRound {
  return {
    ...(wait.requests.length > 0 ? { inputResponses: responses } : {}),
    ...(wait.requestState !== undefined ? { requestState: wait.requestState } : {}),
  };
}

/**
 * After a `-32042` round: the call is simply run again once the URLs are done (no round state goes with it);
 * a URL the person refused ends the call.
 */
export function retryAfterUrls(
  host: ElicitationHost,
  input: { server: string; tool: string },
  requests: RoundKey[],
  responses: Record<string, ElicitResult>,
): undefined {
  const refused = requests.find((r) => responses[r.key]?.action !== 'accept');
  if (refused) {
    const how = host.requests.answerFor(refused.id)?.reason ?? 'not accepted';
    throw ApplicationFailure.nonRetryable(
      `tool "${input.tool}" of server "${input.server}" requires URL elicitation "${refused.id}", which was ${how}`,
      FailureTypes.UrlElicitationRefused,
    );
  }
  return undefined;
}

/** The wait for a round's requests (one after the other), then the next round's input; carried across continue-as-new. */
export function roundSteps(ctx: GateContext, wait: RoundWait): Step {
  const { host, call, input } = ctx;
  const requests = wait.requests;
  // The round's answers are read before the next round's activity is scheduled: the host keeps a call's resolved
  // answers until the call finishes (bounded state drops them only in finishCall).
  const next = (): Step => {
    const responses = roundAnswers(host, requests);
    return { again: { next: wait.form === 'url-error' ? retryAfterUrls(host, input, requests, responses) : nextRound(wait, responses) } };
  };
  if (requests.length === 0) return run(pauseBeforeRetry, next);
  const from = (i: number): Step => {
    for (; i < requests.length; i++) {
      const id = requests[i]!.id;
      if (host.requests.isResolved(id)) continue;
      // The round's state goes with the wait: a continue-as-new now resumes the call at this round.
      host.waits.setWaiting(call.callId, id, { round: wait });
      const after = i + 1;
      return { until: () => host.requests.isResolved(id), then: () => from(after) };
    }
    host.waits.setWaiting(call.callId, undefined);
    return next();
  };
  return from(0);
}

/** The round gate's wait: record the round's requests, wait for their answers, then the next round. */
export const roundWait: GateWait<'round'> = (ctx, outcome) =>
  roundSteps(ctx, startRound(ctx.host, ctx.input, ctx.call.callId, ctx.state.round, ctx.state.maxRounds, outcome));
