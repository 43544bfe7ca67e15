/**
 * The modern era (MCP 2026-07-28) in the activities plane: a round that ended `input_required` becomes the
 * `form: "mrtr"` outcome, checked (only elicitations, each admitted; a bounded `requestState`; a bounded size).
 * Nothing is held while the person thinks: the workflow answers, then runs the next round with the state.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { FailureTypes, jsonByteLength, readInputRequests } from '../contract/index.js';
import type { InputRequiredRound } from '../mcp/index.js';
import { admittedOrFail } from './failures.js';
import { MAX_RESULT_BYTES, type CallMcpToolInput, type CallMcpToolInputRequired, type ElicitationRequests, type WorkerFlags } from './types.js';

/** Largest `requestState` a round may carry (it lives in workflow history): past it the call fails. */
export const MAX_REQUEST_STATE_BYTES = 64 * 1024;

/** A round's input requests go back to the workflow, checked: only elicitations, and a bounded state. */
export function inputRequiredOutcome(input: CallMcpToolInput, round: InputRequiredRound, flags: WorkerFlags): CallMcpToolInputRequired {
  const where = `tool "${input.tool}" of server "${input.server}"`;
  if (round.requestState !== undefined) {
    const size = jsonByteLength(round.requestState);
    if (size > MAX_REQUEST_STATE_BYTES) {
      throw ApplicationFailure.nonRetryable(
        `${where} sent a requestState of ${size} bytes, over the limit of ${MAX_REQUEST_STATE_BYTES} bytes`,
        FailureTypes.RequestStateTooLarge,
      );
    }
  }
  const inputRequests: ElicitationRequests = {};
  for (const r of readInputRequests(round.inputRequests)) {
    if (r.kind === 'unsupported') {
      throw ApplicationFailure.nonRetryable(
        `${where} asked for input of kind "${r.method}" (key "${r.key}"), which this client never declared: only elicitation (form and URL mode) is supported`,
        FailureTypes.UnsupportedInputRequest,
      );
    }
    inputRequests[r.key] = { method: 'elicitation/create', params: admittedOrFail(where, r.key, r.params) };
  }
  const size = jsonByteLength(inputRequests);
  if (size > MAX_RESULT_BYTES) {
    throw ApplicationFailure.nonRetryable(
      `${where} sent input requests of ${size} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`,
      FailureTypes.InputRequestsTooLarge,
    );
  }
  return { status: 'input_required', form: 'mrtr', inputRequests, ...(round.requestState !== undefined ? { requestState: round.requestState } : {}), ...flags };
}
