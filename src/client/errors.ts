/**
 * The client's errors: one class per plane, each with a discriminant and an `is…` guard.
 * - `ToolCallFailure`: a tool call (or the listing of a server's tools) failed. It is the workflow's Temporal failure,
 *   an `ApplicationFailure` whose `type` is the failure type (src/contract/failures.ts), or `Cancelled`, `Terminated`,
 *   `TimedOut` when the workflow itself ended so: `err.type === FailureTypes.UnknownTool`.
 * - `AnswerRejectedFailure`: the workflow refused an answer (the `submitAnswer` update's `ApplicationFailure`, its
 *   `type` one of the answer plane's: `UnknownRequest`, `AlreadyResolved`, `Expired`, `InvalidAnswer`, …).
 * - `ClientError`: what the client itself finds, with a `code` from `ClientErrorCodes` (Temporal unreachable, no
 *   worker, no such workflow, …).
 * A type this version does not know still gives its plane's class with `type` set, so a newer worker's failures are not
 * lost. The type is read from the failure, never from its message text.
 */
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { causeChain } from '../contract/causes.js';
import type { FailureType } from '../contract/failures.js';
import type { Answer } from '../contract/index.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE } from '../workflows/visibility.js';

/** A failed call's type: a FailureType, or `Cancelled`, `Terminated`, `TimedOut` when the workflow itself ended so, or `Unknown`. */
export type CallFailureType = FailureType | 'Cancelled' | 'Terminated' | 'TimedOut' | 'Unknown' | (string & {});

/** The call a ToolCallFailure is about. */
export interface FailedCall {
  workflowId: string;
  server?: string;
  tool?: string;
  /** What failed: a tool call (the default), the listing of a server's tools (the workflow `mcpListTools`), or an agent (`mcpAgent`). */
  operation?: 'tools/call' | 'tools/list' | 'agent';
}

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

/** A tool call failed (the workflow failed, was cancelled, terminated or timed out): its failure, with the call it was. */
export class ToolCallFailure extends ApplicationFailure {
  override readonly name = 'ToolCallFailure';
  declare readonly type: CallFailureType;
  readonly workflowId: string;
  readonly server?: string;
  readonly tool?: string;
  readonly operation: 'tools/call' | 'tools/list' | 'agent';
  /** The failure's own message (without the call prefix). */
  readonly failureMessage: string;

  /** `cause`: the client's error (a WorkflowFailedError), whose chain holds the workflow's failure. */
  constructor(call: FailedCall & { type: CallFailureType; message: string }, cause?: unknown) {
    const root = cause instanceof Error ? rootFailure(cause).failure : undefined;
    const app = root instanceof ApplicationFailure ? root : undefined;
    const where = call.server || call.tool ? ` (${call.server ?? '?'}/${call.tool ?? '?'})` : '';
    const what =
      call.operation === 'tools/list'
        ? `listing the tools of server "${call.server ?? '?'}" (workflow "${call.workflowId}")`
        : call.operation === 'agent'
          ? `agent "${call.workflowId}"`
          : `tool call "${call.workflowId}"${where}`;
    super(
      `${what} failed: ${call.type}: ${call.message}`,
      call.type,
      app?.nonRetryable,
      app?.details,
      cause instanceof Error ? cause : undefined,
      undefined,
      app?.category,
    );
    this.workflowId = call.workflowId;
    this.server = call.server;
    this.tool = call.tool;
    this.operation = call.operation ?? 'tools/call';
    this.failureMessage = call.message;
  }

  /** The ToolCallFailure of a workflow's failure (a WorkflowFailedError): the type and message of its innermost failure. */
  static of(err: unknown, call: FailedCall): ToolCallFailure {
    const root = rootFailure(err);
    return new ToolCallFailure({ ...call, type: root.type, message: root.message }, err);
  }

  /** Plain JSON, for `--json` and logs. */
  toJSON(): Record<string, unknown> {
    return { error: this.type, message: this.failureMessage, workflowId: this.workflowId, server: this.server, tool: this.tool };
  }
}

/** The answer plane's failure types that say the request is not pending (any more): the message is the workflow's reason. */
const NOT_PENDING = new Set<string>(['UnknownRequest', 'AlreadyResolved', 'Expired']);

/** The workflow refused an answer (the `submitAnswer` update rejected it), with the request and the reason. */
export class AnswerRejectedFailure extends ApplicationFailure {
  override readonly name = 'AnswerRejectedFailure';
  declare readonly type: FailureType | 'Unknown' | (string & {});
  constructor(
    readonly workflowId: string,
    readonly requestId: string,
    type: string,
    /** The workflow's reason (names the field for `InvalidAnswer`). */
    readonly reason: string,
    cause?: unknown,
  ) {
    super(
      NOT_PENDING.has(type) ? `workflow "${workflowId}": ${reason}` : `workflow "${workflowId}" refused the answer: ${reason}`,
      type || 'Unknown',
      true,
      undefined,
      cause instanceof Error ? cause : undefined,
    );
  }

  /** The AnswerRejectedFailure of a rejected update (a WorkflowUpdateFailedError): the type and message of its failure. */
  static of(err: unknown, workflowId: string, requestId: string): AnswerRejectedFailure {
    const root = rootFailure(err);
    return new AnswerRejectedFailure(workflowId, requestId, root.type, root.message, err);
  }

  /** Plain JSON, for `--json` and logs: the failure's type as `error`, the reason, the workflow and the request. */
  toJSON(): Record<string, unknown> {
    return { error: this.type, message: this.reason, workflowId: this.workflowId, requestId: this.requestId };
  }
}

/** What the client itself finds, as `ClientError.code` (the `error` of the CLI's `--json`). */
export const ClientErrorCodes = {
  /** Temporal cannot be reached (the address, or the server is down) or does not answer in time. */
  TemporalUnreachable: 'TemporalUnreachable',
  /** Temporal refuses this client: an unknown namespace, no permission, not authenticated (API key, mTLS). */
  TemporalRefused: 'TemporalRefused',
  /** No worker takes the workflow's work: nothing polls its task queue, or its worker did not reply in time. */
  NoWorker: 'NoWorker',
  /** A worker takes the workflow's task but cannot complete it (the workflow waits, not failed, until that is fixed). */
  WorkflowTaskFailing: 'WorkflowTaskFailing',
  /** No workflow with that id. */
  UnknownWorkflow: 'UnknownWorkflow',
  /** The workflow is not running: it has no pending requests to answer. */
  WorkflowClosed: 'WorkflowClosed',
  /** A workflow with that id is already running. */
  WorkflowAlreadyStarted: 'WorkflowAlreadyStarted',
  /** The workflow has no such query or update: it is not a durable-mcp workflow (or one too old for it). */
  NotDurableMcp: 'NotDurableMcp',
  /** The awaiting-input search attribute is not registered in the namespace, so workflows awaiting input cannot be listed. */
  SearchAttributeNotRegistered: 'SearchAttributeNotRegistered',
  /** Temporal refused an update because of a per-run limit on updates. */
  UpdateLimit: 'UpdateLimit',
  /** Temporal refused the request for now (`8 RESOURCE_EXHAUSTED`): a rate limit or a quota of the namespace. Try again. */
  TemporalBusy: 'TemporalBusy',
  /** Temporal refused the request as invalid (`3 INVALID_ARGUMENT`): a payload over its size limit, a bad search attribute. */
  TemporalRejected: 'TemporalRejected',
} as const;
export type ClientErrorCode = (typeof ClientErrorCodes)[keyof typeof ClientErrorCodes];

/** What a ClientError names, by code (each field only where it applies). */
export interface ClientErrorFields {
  workflowId?: string;
  taskQueue?: string;
  /** The Temporal address (TemporalUnreachable). */
  address?: string;
  namespace?: string;
  /** The workflow's status (WorkflowClosed). */
  status?: string;
  /** The workflow task's attempt (WorkflowTaskFailing). */
  attempt?: number;
  /** Which per-run limit (UpdateLimit). */
  limit?: 'total-updates' | 'in-flight-updates';
  /** What was seen: why no worker answered (NoWorker), the failing task's message (WorkflowTaskFailing), Temporal's own words. */
  detail?: string;
}

/** An error the client finds itself (not a workflow's failure), with its code and what it names. */
export class ClientError extends Error {
  override readonly name = 'ClientError';
  readonly workflowId?: string;
  readonly taskQueue?: string;
  readonly address?: string;
  readonly namespace?: string;
  readonly status?: string;
  readonly attempt?: number;
  readonly limit?: 'total-updates' | 'in-flight-updates';
  readonly detail?: string;
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    fields: ClientErrorFields = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    Object.assign(this, fields);
  }

  /** Plain JSON, for `--json` and logs: the code as `error`, the message, and what the error names. */
  toJSON(): Record<string, unknown> {
    const { workflowId, taskQueue, address, namespace, status, attempt, limit } = this;
    const fields = { workflowId, taskQueue, address, namespace, status, attempt, limit };
    return { error: this.code, message: this.message, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
  }
}

/** Whether `err` is a ToolCallFailure (of `type`, when given). */
export function isToolCallFailure<T extends CallFailureType>(err: unknown, type?: T): err is ToolCallFailure & { type: T } {
  return err instanceof ToolCallFailure && (type === undefined || err.type === type);
}
/** Whether `err` is an AnswerRejectedFailure (of `type`, when given). */
export function isAnswerRejectedFailure<T extends FailureType | (string & {})>(err: unknown, type?: T): err is AnswerRejectedFailure & { type: T } {
  return err instanceof AnswerRejectedFailure && (type === undefined || err.type === type);
}
/** Whether `err` is a ClientError (of one of `codes`, when given). */
export function isClientError<C extends ClientErrorCode>(err: unknown, ...codes: C[]): err is ClientError & { code: C } {
  return err instanceof ClientError && (codes.length === 0 || (codes as string[]).includes(err.code));
}

// ---- the client's own errors, as the client and the CLI raise them ----

/** No worker answered: nothing polls the workflow's task queue, or its worker did not reply in time. `detail` says which. */
export function noWorker(workflowId: string, taskQueue: string | undefined, what: string, detail: string, hint = ''): ClientError {
  return new ClientError(
    ClientErrorCodes.NoWorker,
    `workflow "${workflowId}": could not ${what}: ${detail}. ` +
      `Likely cause: no worker polls task queue "${taskQueue ?? '?'}"` +
      ` (start one: \`npm start\` in a clone, or \`npx durable-mcp worker\`)${hint ? `. ${hint}` : ''}`,
    { workflowId, taskQueue, detail },
  );
}

/**
 * No worker answered because the workflow's task fails on every attempt (a worker runs it and cannot complete it, e.g. it
 * lacks the encryption key a payload names): the workflow waits, not failed, until that is fixed. `failure` is the message
 * of the history's last WorkflowTaskFailed event.
 */
export function workflowTaskFailing(workflowId: string, taskQueue: string | undefined, what: string, attempt: number, failure: string): ClientError {
  const missing = missingWorkflowType(failure);
  return new ClientError(
    ClientErrorCodes.WorkflowTaskFailing,
    `workflow "${workflowId}": could not ${what}: its workflow task fails (attempt ${attempt}): ${failure}. ` +
      (missing !== undefined
        ? `${doesNotRun(taskQueue, missing)}; the workflow waits (it has not failed) until such a worker takes it`
        : 'A worker picks it up but cannot complete it; the workflow waits (it has not failed) until that is fixed'),
    { workflowId, taskQueue, attempt, detail: failure },
  );
}

/** The workflow type a worker's workflow bundle lacks, from the message of its failed workflow task, else undefined. */
export function missingWorkflowType(failure: string): string | undefined {
  return /Failed to initialize workflow of type '([^']{1,200})': no such function is exported by the workflow bundle/.exec(failure)?.[1];
}

/** What to do when the worker of `taskQueue` does not run the workflow type `type` (its workflows module does not export it). */
export function doesNotRun(taskQueue: string | undefined, type: string): string {
  const todo =
    type === 'mcpAgent'
      ? 'start a worker that does: `npx durable-mcp dev`, or `npx durable-mcp worker --agent`, or export mcpAgent from your workflows module (docs/agents.md)'
      : `export ${type} from the workflows module of the worker of that task queue`;
  return `The worker on task queue "${taskQueue ?? '?'}" does not run the workflow ${type}: ${todo}`;
}

export function workflowClosed(workflowId: string, status: string): ClientError {
  return new ClientError(ClientErrorCodes.WorkflowClosed, `workflow "${workflowId}" is ${status.toLowerCase()}: it has no pending requests`, {
    workflowId,
    status,
  });
}

export function temporalUnreachable(address: string, cause: unknown): ClientError {
  return new ClientError(
    ClientErrorCodes.TemporalUnreachable,
    `cannot reach Temporal at ${address}: ${(cause as Error)?.message ?? String(cause)}.` +
      ` Is a server running there? Set TEMPORAL_ADDRESS, or start one: \`npm start\` in a clone, or \`npx durable-mcp dev\`.`,
    { address },
    { cause },
  );
}

export function unknownWorkflow(workflowId: string, cause?: unknown): ClientError {
  return new ClientError(ClientErrorCodes.UnknownWorkflow, `no workflow with id "${workflowId}"`, { workflowId }, { cause });
}

export function searchAttributeNotRegistered(namespace: string): ClientError {
  return new ClientError(
    ClientErrorCodes.SearchAttributeNotRegistered,
    `the search attribute ${AWAITING_INPUT_SEARCH_ATTRIBUTE} is not registered in namespace "${namespace}", so workflows awaiting input cannot be listed. ` +
      `Register it with: temporal operator search-attribute create --namespace ${namespace} --name ${AWAITING_INPUT_SEARCH_ATTRIBUTE} --type Bool ` +
      `(durable-mcp dev and the docker-compose setup do this). Meanwhile, pass a workflow id.`,
    { namespace },
  );
}

/**
 * The ClientError for an update Temporal refused by a per-run limit (issue #16), else undefined: the total number of
 * updates in a run (`history.maxTotalUpdates`, default 2,000) or the updates in flight at once (`history.maxInFlightUpdates`,
 * default 10). The message says which, and what to do: an answer can still be sent as the `answer` signal, which has
 * neither limit (the command is in the message).
 */
export function updateLimit(err: unknown, workflowId: string, answer?: Answer): ClientError | undefined {
  const message = `${(err as Error)?.message ?? ''} ${(err as { cause?: Error })?.cause?.message ?? ''}`;
  const limit = /limit on the total number of distinct updates/i.test(message)
    ? 'total-updates'
    : /in-flight updates|concurrent in-flight|limit on number of (concurrent )?in-?flight/i.test(message)
      ? 'in-flight-updates'
      : undefined;
  if (!limit) return undefined;
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
  return new ClientError(ClientErrorCodes.UpdateLimit, `workflow "${workflowId}": ${which}. ${todo}`, { workflowId, limit }, { cause: err });
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
