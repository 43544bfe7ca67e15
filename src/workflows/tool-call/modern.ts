/**
 * The modern era (MCP 2026-07-28, multi round-trip requests) in the call loop: a `tools/call` that returns
 * `input_required` becomes a round of pending requests (one activity per round, nothing runs or is held while the
 * person answers), and the next round carries the answers and the `requestState` as given. A round with only
 * `requestState` (the server shed load) is retried after a short pause. The `-32042` form shares the round's
 * requests and wait (legacy.ts says what follows it). Deterministic: workflow APIs only.
 */
import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import type { ElicitResult } from '../../contract/index.js';
import { mrtrRound } from '../../telemetry/workflow-metrics.js';
import type { ElicitationHost, RoundWait } from '../host/index.js';
import type { InputRequiredOutcome } from './outcome.js';

/** Default `maxRounds`. */
export const DEFAULT_MAX_ROUNDS = 10;
/** Pause before retrying a round that carried only `requestState` (the server shed load). */
export const REQUEST_STATE_ONLY_PAUSE_MS = 1_000;

/** What the next round's activity carries from the previous round (absent on a call's first round). */
export interface NextRound {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
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
  const registered = host.registerRound(callId, round, outcome.inputRequests);
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
