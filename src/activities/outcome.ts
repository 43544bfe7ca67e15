/**
 * What a tool call's attempt turns into (pure: unit-tested without a Temporal server, test/activities/outcome.test.ts):
 * - a round of `tools/call`: the tool's result (bounded), or the input one era asks for, checked (the modern era
 *   (MCP 2026-07-28): `input_required`, the `form: "mrtr"` outcome, only elicitations, each admitted, a bounded
 *   `requestState`; the legacy era: a `-32042` URLElicitationRequired error, the `form: "url-error"` outcome). Nothing
 *   is held while the person thinks: the workflow answers, then runs the next round (or the call again);
 * - a legacy-era elicitation on the live session: the person's answer, or the call released with the request;
 * - an error: the login the call needs, a run again in the legacy era (`era: "auto"`), or the failure (./failures.ts).
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { FailureTypes, jsonByteLength, readInputRequests, type Answer, type Request, type ToolResult } from '../contract/index.js';
import {
  isMcpSourceError,
  loginRequiredOf,
  McpSourceErrorCodes,
  urlInputRequests,
  type InputRequiredRound,
  type LoginRequired,
  type ModernTask,
  type RoundOutcome,
  type ServerConfig,
  type UrlRequiredRound,
} from '../mcp/index.js';
import { admittedOrFail, failureOf } from './failures.js';
import {
  MAX_RESULT_BYTES,
  type CallMcpToolCompleted,
  type CallMcpToolInput,
  type CallMcpToolInputRequired,
  type CallMcpToolOutcome,
  type CallMcpToolReleased,
  type CallMcpToolUrlRequired,
  type ElicitOutcome,
  type InputRequests,
  type ReleaseReason,
  type TaskHandle,
  type WorkerFeatures,
} from '../contract/activities.js';

/** A legacy-era call given up while a person is asked: the request that waits on, and why. */
export interface Release {
  request: Request;
  reason: ReleaseReason;
}

/** Largest `requestState` a round may carry (it lives in workflow history): past it the call fails. */
export const MAX_REQUEST_STATE_BYTES = 64 * 1024;

/** A round's input requests go back to the workflow, checked: only elicitations, and a bounded state. */
export function inputRequiredOutcome(
  input: Pick<CallMcpToolInput, 'server' | 'tool'>,
  round: InputRequiredRound,
  features: WorkerFeatures,
): CallMcpToolInputRequired {
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
  const inputRequests: InputRequests = {};
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
  return {
    status: 'input_required',
    form: 'mrtr',
    inputRequests,
    ...(round.requestState !== undefined ? { requestState: round.requestState } : {}),
    ...features,
  };
}

/** A `-32042` URLElicitationRequired error goes back to the workflow as its URLs, each admitted: complete them, then call again. */
export function urlRequiredOutcome(input: CallMcpToolInput, round: UrlRequiredRound, features: WorkerFeatures): CallMcpToolUrlRequired {
  const where = `tool "${input.tool}" of server "${input.server}"`;
  const inputRequests: InputRequests = {};
  for (const { key, params } of urlInputRequests(round)) inputRequests[key] = { method: 'elicitation/create', params: admittedOrFail(where, key, params) };
  if (Object.keys(inputRequests).length === 0) {
    const message = `${where} requires URL elicitation (-32042) but named no URL: ${round.message}`;
    throw ApplicationFailure.nonRetryable(message, FailureTypes.UnsupportedInputRequest);
  }
  return { status: 'input_required', form: 'url-error', inputRequests, ...features };
}

/** The tool's result, within the size of a Temporal payload. */
export function completedOutcome(input: Pick<CallMcpToolInput, 'server' | 'tool'>, result: ToolResult): CallMcpToolCompleted {
  const size = jsonByteLength(result);
  if (size > MAX_RESULT_BYTES) {
    throw ApplicationFailure.nonRetryable(
      `tool "${input.tool}" of server "${input.server}" returned ${size} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`,
      FailureTypes.ResultTooLarge,
    );
  }
  return { status: 'completed', result };
}

/** A server's task as the workflow keeps it (the bounded fields of tasks-modern.ts's reading). */
export function taskHandle(task: ModernTask): TaskHandle {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    ttlMs: task.ttlMs,
    ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
  };
}

/** A round that ended: complete, or the input one era or the other asks for. */
export function roundOutcome(input: CallMcpToolInput, round: RoundOutcome, features: WorkerFeatures): CallMcpToolOutcome {
  if (round.kind === 'complete') return completedOutcome(input, round.result);
  if (round.kind === 'task') return { status: 'task', task: taskHandle(round.task), ...features };
  return round.kind === 'url_required' ? urlRequiredOutcome(input, round, features) : inputRequiredOutcome(input, round, features);
}

export function releasedOutcome(release: Release, features: WorkerFeatures): CallMcpToolReleased {
  return { status: 'released', request: release.request, reason: release.reason, ...features };
}

/** How a legacy-era elicitation's wait ended: the workflow's update (its outcome, or none: unreachable), or an interruption. */
export type ElicitationWait = { update: { outcome?: ElicitOutcome } } | { interrupted: ReleaseReason };

/**
 * What the elicitation handler does after its wait: give the server the person's answer, or release the call (the
 * server's request stays unanswered). `promised`: this call's session was promised to another call meanwhile, so
 * even an answer releases it (the answer is recorded; the run again uses it).
 */
export function elicitationEnd(request: Request, wait: ElicitationWait, promised: boolean): { answer: Answer } | { release: Release } {
  if ('interrupted' in wait) return { release: { request, reason: wait.interrupted } };
  const outcome = wait.update.outcome;
  if (outcome?.status === 'answered') return promised ? { release: { request, reason: 'session-needed' } } : { answer: outcome.answer };
  if (outcome?.status === 'released') return { release: { request: outcome.request, reason: 'hold-expired' } };
  return { release: { request, reason: 'workflow-unreachable' } };
}

/** What a call's error turns into: the login it needs, its run again in the legacy era, or its failure. */
export type CallErrorOutcome =
  | { kind: 'login-required'; needed: LoginRequired }
  | { kind: 'legacy-era'; failure: ApplicationFailure }
  | { kind: 'failed'; failure: ApplicationFailure | CancelledFailure };

/**
 * The outcome of an error of a call's lease or round, for the call to `server` (its config's `era`). `cancelled`: the
 * activity's cancellation signal, when it fired (the call fails cancelled, whatever the error); `generation`: the
 * token generation of a call behind OAuth.
 */
export function callErrorOutcome(
  err: unknown,
  call: { server: string; era: ServerConfig['era']; cancelled?: { reason: unknown }; generation?: number },
): CallErrorOutcome {
  const { server, cancelled, generation } = call;
  if (cancelled) {
    const reason = cancelled.reason;
    return { kind: 'failed', failure: reason instanceof CancelledFailure ? reason : new CancelledFailure(String(reason ?? 'cancelled')) };
  }
  const needed = generation !== undefined ? loginRequiredOf(err, server, generation) : undefined;
  if (needed) return { kind: 'login-required', needed };
  // docs/protocol.md (the era fallback): in `era: "auto"`, a tool refused in the 2026-07-28 era for asking the old way
  // (before any person was asked) runs again at once in the legacy era, in the same attempt (./tool-call.ts). The
  // failure is what the call fails with should it come back here from that run (it cannot: a legacy run is not refused so).
  if (isMcpSourceError(err, McpSourceErrorCodes.BackChannelRefused) && err.era === 'modern' && call.era === 'auto') {
    const failure = ApplicationFailure.create({
      message: `${err.message}; the tool asks the old way (a server-initiated request): running it again in the legacy era`,
      type: FailureTypes.ToolCallFailed,
      nextRetryDelay: 1,
    });
    return { kind: 'legacy-era', failure };
  }
  return { kind: 'failed', failure: failureOf(err, server) };
}
