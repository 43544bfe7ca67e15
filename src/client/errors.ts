/**
 * The client's errors. A failed call or a refused answer gives one class per failure type of
 * src/contract/failures.ts, mapped from the failure's `type` (never from its message text); a type this
 * version does not know still gives the base class, with `type` set, so a newer worker's failures are not
 * lost. Then what the client itself finds: Temporal unreachable, no such workflow, the search attribute not
 * registered, no worker, a closed workflow, a per-run update limit; and how an error's causes are read.
 */
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { causeChain } from '../contract/causes.js';
import { isFailureType, type FailureType } from '../contract/failures.js';
import type { Answer } from '../contract/index.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE } from '../workflows/visibility.js';

/** What a failed tool call says: its type (from the documented list), message, and the call it was. */
export interface CallFailureDetails {
  workflowId: string;
  /** A FailureType, or `Cancelled`, `Terminated`, `TimedOut` when the workflow itself ended so, or `Unknown`. */
  type: FailureType | 'Cancelled' | 'Terminated' | 'TimedOut' | 'Unknown' | (string & {});
  message: string;
  server?: string;
  tool?: string;
  /** What failed: a tool call (the default), or the listing of a server's tools (the workflow `mcpListTools`). */
  operation?: 'tools/call' | 'tools/list';
}

/** A tool call failed (the workflow failed, was cancelled, terminated or timed out). */
export class ToolCallFailedError extends Error {
  /** The class's own name (`UnknownToolFailure`, …): each failure type below is a subclass with nothing else of its own. */
  override name = this.constructor.name;
  readonly workflowId: string;
  readonly type: CallFailureDetails['type'];
  readonly server?: string;
  readonly tool?: string;
  readonly operation: 'tools/call' | 'tools/list';
  /** The failure's own message (without the call prefix). */
  readonly failureMessage: string;
  constructor(details: CallFailureDetails, options?: { cause?: unknown }) {
    const call = details.server || details.tool ? ` (${details.server ?? '?'}/${details.tool ?? '?'})` : '';
    const what =
      details.operation === 'tools/list'
        ? `listing the tools of server "${details.server ?? '?'}" (workflow "${details.workflowId}")`
        : `tool call "${details.workflowId}"${call}`;
    super(`${what} failed: ${details.type}: ${details.message}`, options);
    this.workflowId = details.workflowId;
    this.type = details.type;
    this.server = details.server;
    this.tool = details.tool;
    this.operation = details.operation ?? 'tools/call';
    this.failureMessage = details.message;
  }
  /** Plain JSON, for `--json` and logs. */
  toJSON(): Record<string, unknown> {
    return { error: this.type, message: this.failureMessage, workflowId: this.workflowId, server: this.server, tool: this.tool };
  }
}
export class UnknownServerFailure extends ToolCallFailedError {}
export class UnknownToolFailure extends ToolCallFailedError {}
export class ToolNotAllowedFailure extends ToolCallFailedError {}
export class McpServerUnavailableFailure extends ToolCallFailedError {}
export class McpConfigInvalidFailure extends ToolCallFailedError {}
export class InvalidArgumentsFailure extends ToolCallFailedError {}
export class ResultTooLargeFailure extends ToolCallFailedError {}
export class InvalidInputFailure extends ToolCallFailedError {}
export class ToolCallCancelledError extends ToolCallFailedError {}

/** An answer was refused by the workflow (the `submitAnswer` update rejected it). */
export class AnswerRejectedError extends Error {
  override name = 'AnswerRejectedError';
  constructor(
    readonly workflowId: string,
    readonly requestId: string,
    readonly type: FailureType | (string & {}),
    readonly reason: string,
    message = `workflow "${workflowId}" refused the answer: ${reason}`,
  ) {
    super(message);
  }
  toJSON(): Record<string, unknown> {
    return { error: this.type, message: this.reason, workflowId: this.workflowId, requestId: this.requestId };
  }
}
/** No request with that id is pending (type UnknownRequest). */
export class NoSuchPendingRequestError extends AnswerRejectedError {
  override name = 'NoSuchPendingRequestError';
  constructor(
    workflowId: string,
    requestId: string,
    readonly detail: string,
    type: FailureType = 'UnknownRequest',
  ) {
    super(workflowId, requestId, type, detail, `workflow "${workflowId}": ${detail}`);
  }
}
/** The request was already answered, declined or cancelled (type AlreadyResolved). */
export class RequestAlreadyResolvedError extends NoSuchPendingRequestError {
  override name = 'RequestAlreadyResolvedError';
  constructor(workflowId: string, requestId: string, detail: string) {
    super(workflowId, requestId, detail, 'AlreadyResolved');
  }
}
/** The request expired (type Expired). */
export class RequestExpiredError extends NoSuchPendingRequestError {
  override name = 'RequestExpiredError';
  constructor(workflowId: string, requestId: string, detail: string) {
    super(workflowId, requestId, detail, 'Expired');
  }
}
/** The answer does not match the request (type InvalidAnswer). */
export class InvalidAnswerError extends AnswerRejectedError {
  override name = 'InvalidAnswerError';
  constructor(workflowId: string, reason: string, requestId = '', type: FailureType = 'InvalidAnswer') {
    super(workflowId, requestId, type, reason);
  }
}
/** The answer is over the size limit (type AnswerTooLarge). */
export class AnswerTooLargeError extends InvalidAnswerError {
  override name = 'AnswerTooLargeError';
  constructor(workflowId: string, reason: string, requestId = '') {
    super(workflowId, reason, requestId, 'AnswerTooLarge');
  }
}

type CallFailureClass = new (details: CallFailureDetails, options?: { cause?: unknown }) => ToolCallFailedError;
/** Call-plane failure types → error classes. A type not listed maps to ToolCallFailedError. */
export const CALL_FAILURE_CLASSES: Partial<Record<string, CallFailureClass>> = {
  UnknownServer: UnknownServerFailure,
  UnknownTool: UnknownToolFailure,
  ToolNotAllowed: ToolNotAllowedFailure,
  McpServerUnavailable: McpServerUnavailableFailure,
  McpConfigInvalid: McpConfigInvalidFailure,
  InvalidArguments: InvalidArgumentsFailure,
  ResultTooLarge: ResultTooLargeFailure,
  InvalidInput: InvalidInputFailure,
  Cancelled: ToolCallCancelledError,
};

/** The innermost ApplicationFailure of a cause chain, or the chain's first Temporal failure of another kind. */
export function rootFailure(err: unknown): { type: string; message: string; failure?: Error } {
  let found: { type: string; message: string; failure?: Error } | undefined;
  for (const e of causeChain(err, 10)) {
    if (e instanceof ApplicationFailure) found = { type: e.type ?? 'Unknown', message: e.message, failure: e };
    else if (!found && e instanceof CancelledFailure) found = { type: 'Cancelled', message: e.message || 'the workflow was cancelled', failure: e };
    else if (!found && e instanceof TerminatedFailure) found = { type: 'Terminated', message: e.message || 'the workflow was terminated', failure: e };
    else if (!found && e instanceof TimeoutFailure) found = { type: 'TimedOut', message: e.message || 'the workflow timed out', failure: e };
  }
  return found ?? { type: 'Unknown', message: (err as Error)?.message ?? String(err) };
}

/** The error class for a failed tool call, chosen by the failure's type. */
export function toolCallFailure(details: CallFailureDetails, cause?: unknown): ToolCallFailedError {
  const Cls = CALL_FAILURE_CLASSES[details.type] ?? ToolCallFailedError;
  return new Cls(details, { cause });
}

/** The error class for a refused answer, chosen by the failure's type. */
export function answerRejection(workflowId: string, requestId: string, type: string, reason: string): AnswerRejectedError {
  switch (type) {
    case 'UnknownRequest':
      return new NoSuchPendingRequestError(workflowId, requestId, reason);
    case 'AlreadyResolved':
      return new RequestAlreadyResolvedError(workflowId, requestId, reason);
    case 'Expired':
      return new RequestExpiredError(workflowId, requestId, reason);
    case 'AnswerTooLarge':
      return new AnswerTooLargeError(workflowId, reason, requestId);
    case 'InvalidAnswer':
      return new InvalidAnswerError(workflowId, reason, requestId);
    default:
      return new AnswerRejectedError(workflowId, requestId, isFailureType(type) ? type : type || 'Unknown', reason);
  }
}

/** No worker answered: nothing polls the workflow's task queue, or its worker did not reply in time. */
export class NoWorkerError extends Error {
  override name = 'NoWorkerError';
  constructor(
    readonly workflowId: string,
    readonly taskQueue: string | undefined,
    readonly what: string,
    readonly detail: string,
    hint = '',
  ) {
    super(
      `workflow "${workflowId}": could not ${what}: ${detail}. ` +
        `Likely cause: no worker polls task queue "${taskQueue ?? '?'}"` +
        ` (start one: \`npm start\` in a clone, or \`npx durable-mcp worker\`)${hint ? `. ${hint}` : ''}`,
    );
  }
}

/**
 * No worker answered because the workflow's task fails on every attempt (a worker runs it and cannot complete it, e.g. it
 * lacks the encryption key a payload names): the workflow waits, not failed, until that is fixed. The failure's message
 * is the one in the history's last WorkflowTaskFailed event.
 */
export class WorkflowTaskFailingError extends NoWorkerError {
  override name = 'WorkflowTaskFailingError';
  constructor(
    workflowId: string,
    taskQueue: string | undefined,
    what: string,
    readonly attempt: number,
    readonly failure: string,
  ) {
    super(workflowId, taskQueue, what, '');
    this.message =
      `workflow "${workflowId}": could not ${what}: its workflow task fails (attempt ${attempt}): ${failure}. ` +
      'A worker picks it up but cannot complete it; the workflow waits (it has not failed) until that is fixed';
  }
}

/** The workflow is closed: it has no pending requests to answer. */
export class WorkflowClosedError extends Error {
  override name = 'WorkflowClosedError';
  constructor(
    readonly workflowId: string,
    readonly status: string,
  ) {
    super(`workflow "${workflowId}" is ${status.toLowerCase()}: it has no pending requests`);
  }
}

export class TemporalUnreachableError extends Error {
  override name = 'TemporalUnreachableError';
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    super(
      `cannot reach Temporal at ${address}: ${(cause as Error)?.message ?? String(cause)}.` +
        ` Is a server running there? Set TEMPORAL_ADDRESS, or start one: \`npm start\` in a clone, or \`npx durable-mcp dev\`.`,
    );
  }
}
export class UnknownWorkflowError extends Error {
  override name = 'UnknownWorkflowError';
  constructor(readonly workflowId: string) {
    super(`no workflow with id "${workflowId}"`);
  }
}
export class SearchAttributeNotRegisteredError extends Error {
  override name = 'SearchAttributeNotRegisteredError';
  constructor(readonly namespace: string) {
    super(
      `the search attribute ${AWAITING_INPUT_SEARCH_ATTRIBUTE} is not registered in namespace "${namespace}", so workflows awaiting input cannot be listed. ` +
        `Register it with: temporal operator search-attribute create --namespace ${namespace} --name ${AWAITING_INPUT_SEARCH_ATTRIBUTE} --type Bool ` +
        `(durable-mcp dev and the docker-compose setup do this). Meanwhile, pass a workflow id.`,
    );
  }
}

/**
 * Temporal refused an update because of a per-run limit (issue #16): the total number of updates in a
 * run (`history.maxTotalUpdates`, default 2,000) or the updates in flight at once
 * (`history.maxInFlightUpdates`, default 10). The message says which, and what to do: an answer can
 * still be sent as the `answer` signal, which has neither limit (the command is in the message).
 */
export class UpdateLimitError extends Error {
  override name = 'UpdateLimitError';
  constructor(
    readonly workflowId: string,
    readonly limit: 'total-updates' | 'in-flight-updates',
    readonly serverMessage: string,
    answer?: Answer,
  ) {
    const which =
      limit === 'total-updates'
        ? `this run has reached Temporal's limit on the total number of updates (history.maxTotalUpdates, default 2,000)`
        : `too many updates (or too large update payloads) are in flight on this run at once (Temporal's history.maxInFlightUpdates, default 10)`;
    const todo = answer
      ? `Send the answer as the \`answer\` signal instead, which has no such limit (a bad answer is then logged and dropped, not reported): ` +
        `temporal workflow signal --workflow-id ${workflowId} --name answer --input '${JSON.stringify(answer).replace(/'/g, "'\\''")}'`
      : limit === 'total-updates'
        ? 'Poll the `pending` query instead (durable-mcp pending <workflowId>), and answer with the `answer` signal.'
        : 'Try again shortly, or poll the `pending` query instead.';
    super(`workflow "${workflowId}": ${which}. ${todo}`);
  }
}

/** The UpdateLimitError for an update Temporal refused by a per-run limit, else undefined. */
export function updateLimit(err: unknown, workflowId: string, answer?: Answer): UpdateLimitError | undefined {
  const message = `${(err as Error)?.message ?? ''} ${(err as { cause?: Error })?.cause?.message ?? ''}`;
  if (/limit on the total number of distinct updates/i.test(message)) return new UpdateLimitError(workflowId, 'total-updates', message.trim(), answer);
  if (/in-flight updates|concurrent in-flight|limit on number of (concurrent )?in-?flight/i.test(message))
    return new UpdateLimitError(workflowId, 'in-flight-updates', message.trim(), answer);
  return undefined;
}

/** Why an update failed: its cause's message, else its own. */
export function updateFailureReason(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause;
  return cause?.message ?? (err as Error).message;
}

/** Whether a gRPC deadline passed (code 4), anywhere in the cause chain. */
export function isDeadlineExceeded(err: unknown): boolean {
  return causeChain(err).some((e) => e.code === 4 || /deadline exceeded/i.test(String(e.message)));
}
