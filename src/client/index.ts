/**
 * Typed helpers for Temporal clients: start a tool call, list pending requests (of one workflow, or of
 * every workflow awaiting input), answer / decline / cancel through `submitAnswer` (so rejections are
 * seen), and wait for the result.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  Connection,
  WorkflowNotFoundError as TemporalWorkflowNotFoundError,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type ClientOptions,
  type WorkflowHandle,
} from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { Answer, Request, ToolResult } from '../contract/index.js';
import { DEFAULT_TASK_QUEUE } from '../contract/message-names.js';
import {
  answerRejection,
  NoWorkerError,
  rootFailure,
  toolCallFailure,
  WorkflowClosedError,
} from './errors.js';
import { optionalDurationMs } from '../workflows/duration.js';
import {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  awaitingInputKey,
  pendingDetailsQuery,
  answerSignal,
  progressQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type CallProgress,
  type PendingRequestDetails,
  type SubmitAnswerResult,
} from '../workflows/messages.js';
import type { McpToolCallInput } from '../workflows/mcp-tool-call.js';
import type { ExecuteMcpToolInput } from '../workflows/tool-call/index.js';

export { DEFAULT_TASK_QUEUE };
export {
  AnswerRejectedError,
  AnswerTooLargeError,
  CALL_FAILURE_CLASSES,
  InvalidAnswerError,
  InvalidArgumentsFailure,
  InvalidInputFailure,
  McpConfigInvalidFailure,
  McpServerUnavailableFailure,
  NoSuchPendingRequestError,
  NoWorkerError,
  RequestAlreadyResolvedError,
  RequestExpiredError,
  ResultTooLargeFailure,
  ToolCallCancelledError,
  ToolCallFailedError,
  ToolNotAllowedFailure,
  UnknownServerFailure,
  UnknownToolFailure,
  WorkflowClosedError,
  answerRejection,
  rootFailure,
  toolCallFailure,
  type CallFailureDetails,
} from './errors.js';
export { FAILURES, FailureTypes, isFailureType, type FailureType } from '../contract/failures.js';
export { progressQuery, type CallProgress } from '../workflows/messages.js';



export class TemporalUnreachableError extends Error {
  override name = 'TemporalUnreachableError';
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    super(`cannot reach Temporal at ${address}: ${(cause as Error)?.message ?? String(cause)}. Is a server running there? Set TEMPORAL_ADDRESS, or start one with \`durable-mcp dev\`.`);
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
function updateLimit(err: unknown, workflowId: string, answer?: Answer): UpdateLimitError | undefined {
  const message = `${(err as Error)?.message ?? ''} ${((err as { cause?: Error })?.cause?.message) ?? ''}`;
  if (/limit on the total number of distinct updates/i.test(message)) return new UpdateLimitError(workflowId, 'total-updates', message.trim(), answer);
  if (/in-flight updates|concurrent in-flight|limit on number of (concurrent )?in-?flight/i.test(message)) return new UpdateLimitError(workflowId, 'in-flight-updates', message.trim(), answer);
  return undefined;
}

/** Connect a Temporal client from @temporalio/envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key). */
export async function connectClient(
  overrides: { address?: string; namespace?: string; interceptors?: ClientOptions['interceptors'] } = {},
): Promise<{ client: Client; address: string; namespace: string }> {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  const address = overrides.address ?? connectionOptions.address ?? 'localhost:7233';
  let connection: Connection;
  try {
    connection = await Connection.connect({
      address,
      tls: connectionOptions.tls as any,
      apiKey: connectionOptions.apiKey as any,
      metadata: connectionOptions.metadata,
      connectTimeout: '5s',
    });
  } catch (err) {
    throw new TemporalUnreachableError(address, err);
  }
  const ns = overrides.namespace ?? namespace ?? 'default';
  return { client: new Client({ connection, namespace: ns, ...(overrides.interceptors ? { interceptors: overrides.interceptors } : {}) }), address, namespace: ns };
}

export interface StartToolCallOptions extends ExecuteMcpToolInput {
  workflowId?: string;
  taskQueue?: string;
}

export interface AwaitingWorkflow {
  workflowId: string;
  runId: string;
  type: string;
  startTime: Date;
  pending: PendingRequestDetails[];
  /** Set when the workflow could not be queried: why (e.g. no worker polls its task queue). */
  unreachable?: string;
}

/**
 * How long a query or an answer waits for a worker by default. Longer than a workflow task's timeout (10 s by
 * default): a worker that stops can be handed a workflow task by its last sticky poll (its held call, released at
 * shutdown, completes and schedules one) and never complete it; Temporal gives that task to another worker only
 * when it times out, and an update or query sent meanwhile waits behind it.
 */
export const WORKER_WAIT_MS = 15_000;

/** Whether a gRPC deadline passed (code 4), anywhere in the cause chain. */
function isDeadlineExceeded(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === 4 || /deadline exceeded/i.test(String(e.message))) return true;
  }
  return false;
}
/** The messages of an error and its causes, joined. */
function causeMessages(err: unknown): string {
  const out: string[] = [];
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) if (e.message) out.push(String(e.message));
  return out.join(': ');
}

const updateFailureReason = (err: unknown): string => {
  const cause = (err as { cause?: { message?: string } }).cause;
  return cause?.message ?? (err as Error).message;
};

export class DurableMcpClient {
  private registered: boolean | undefined;

  constructor(
    readonly client: Client,
    readonly options: { taskQueue?: string } = {},
  ) {}

  get namespace(): string {
    return this.client.options.namespace;
  }

  /** Whether the namespace has the DurableMcpAwaitingInput search attribute. */
  async searchAttributeRegistered(): Promise<boolean> {
    if (this.registered === undefined) {
      try {
        const res = await this.client.connection.operatorService.listSearchAttributes({ namespace: this.namespace });
        this.registered = Object.prototype.hasOwnProperty.call(res.customAttributes ?? {}, AWAITING_INPUT_SEARCH_ATTRIBUTE);
      } catch {
        this.registered = false;
      }
    }
    return this.registered;
  }

  private async startOptions(options: StartToolCallOptions) {
    const { workflowId, taskQueue, ...input } = options;
    // Durations are checked here too, so a bad one fails before a workflow starts (naming the field).
    optionalDurationMs('elicitation.expiresIn', input.elicitation?.expiresIn);
    optionalDurationMs('elicitation.holdFor', input.elicitation?.holdFor);
    optionalDurationMs('toolTimeout', input.toolTimeout, { allowZero: false });
    optionalDurationMs('heartbeatTimeout', input.heartbeatTimeout, { allowZero: false });
    const registered = await this.searchAttributeRegistered();
    return {
      taskQueue: taskQueue ?? this.options.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId: workflowId ?? `mcp-${input.server}-${input.tool}-${randomUUID().slice(0, 8)}`,
      args: [input] as [McpToolCallInput],
      ...(registered ? { typedSearchAttributes: [{ key: awaitingInputKey, value: false }] } : {}),
    };
  }

  /** Start the `mcpToolCall` workflow. The search attribute is set when registered, so the call can be listed while it waits. */
  async startToolCall(options: StartToolCallOptions): Promise<WorkflowHandle> {
    return this.client.workflow.start('mcpToolCall', await this.startOptions(options));
  }

  /**
   * Start the `mcpToolCall` workflow and wait for its first pending request, in one update-with-start
   * request: the wait is handled in the workflow's first task, so a bot learns of the request in the task
   * that records it. `pending` is empty when the call finished without asking anything, or when nothing
   * was asked within `timeoutMs` (default 60 s, at most 10 min).
   */
  async startToolCallAndWaitForPending(options: StartToolCallOptions, wait: { timeoutMs?: number } = {}): Promise<{ handle: WorkflowHandle; pending: Request[] }> {
    const startWorkflowOperation = new WithStartWorkflowOperation('mcpToolCall', { ...(await this.startOptions(options)), workflowIdConflictPolicy: 'FAIL' });
    const pending = await this.client.workflow.executeUpdateWithStart(waitForPendingUpdate, {
      args: [wait.timeoutMs !== undefined ? { timeoutMs: wait.timeoutMs } : {}],
      startWorkflowOperation,
    });
    return { handle: await startWorkflowOperation.workflowHandle(), pending };
  }

  private async handle(workflowId: string): Promise<WorkflowHandle> {
    return (await this.describe(workflowId)).handle;
  }

  private async describe(workflowId: string) {
    const handle = this.client.workflow.getHandle(workflowId);
    try {
      const description = await handle.describe();
      return { handle, taskQueue: description.taskQueue, status: description.status.name as string };
    } catch (err) {
      if (err instanceof TemporalWorkflowNotFoundError || /not found/i.test((err as Error).message)) throw new UnknownWorkflowError(workflowId);
      throw err;
    }
  }

  /**
   * Whether a worker polls `taskQueue` (seen within `freshMs`, default 90 s: a live worker long-polls and is
   * seen at least once a minute). Undefined when the server does not say.
   */
  async workerPolls(taskQueue: string, freshMs = 90_000): Promise<boolean | undefined> {
    try {
      const res = await this.client.workflowService.describeTaskQueue({ namespace: this.namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 });
      const now = Date.now();
      return (res.pollers ?? []).some((p) => {
        const t = p.lastAccessTime;
        const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : now;
        return now - ms <= freshMs;
      });
    } catch {
      return undefined;
    }
  }

  /**
   * Run `fn` with a gRPC deadline; a missed deadline becomes a NoWorkerError naming the task queue.
   * `unconfirmed` is added to the error when a missed deadline may leave work behind (an update a worker may still apply).
   */
  private async withWorker<R>(workflowId: string, taskQueue: string, what: string, timeoutMs: number, fn: () => Promise<R>, hint = '', unconfirmed = ''): Promise<R> {
    if ((await this.workerPolls(taskQueue)) === false) throw new NoWorkerError(workflowId, taskQueue, what, 'no worker has polled its task queue recently', hint);
    const deadline = Date.now() + timeoutMs;
    try {
      return await this.client.withDeadline(deadline, fn);
    } catch (err) {
      // The deadline shows as DEADLINE_EXCEEDED, or as CANCELLED once it has passed.
      if (isDeadlineExceeded(err) || Date.now() >= deadline) {
        throw new NoWorkerError(workflowId, taskQueue, what, `no worker answered within ${Math.round(timeoutMs / 1000)} s${unconfirmed}`, hint);
      }
      throw err;
    }
  }

  /** The pending requests of one workflow, with their context. Fails within `timeoutMs` (default 15 s) when no worker answers. */
  async pending(workflowId: string, options: { timeoutMs?: number } = {}): Promise<PendingRequestDetails[]> {
    const { handle, taskQueue, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') return [];
    return this.withWorker(workflowId, taskQueue, 'list its pending requests', options.timeoutMs ?? WORKER_WAIT_MS, () => handle.query(pendingDetailsQuery));
  }

  /** The progress of the workflow's running tool calls (MCP progress notifications). Fails within `timeoutMs` when no worker answers. */
  async progress(workflowId: string, options: { timeoutMs?: number } = {}): Promise<CallProgress[]> {
    const { handle, taskQueue, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') return [];
    return this.withWorker(workflowId, taskQueue, 'report its progress', options.timeoutMs ?? WORKER_WAIT_MS, () => handle.query(progressQuery));
  }

  /**
   * Wait (up to `timeoutMs`, default 60 s, at most 10 min) until the workflow has a pending request whose id
   * is not in `seen`, and return its pending requests: a push instead of polling `pending`. Returns the
   * current list (maybe empty) on timeout and when the run closes. At most two callers may wait per workflow.
   */
  async waitForPending(workflowId: string, options: { seen?: string[]; timeoutMs?: number } = {}): Promise<Request[]> {
    const handle = await this.handle(workflowId);
    try {
      return await handle.executeUpdate(waitForPendingUpdate, { args: [{ ...(options.seen ? { seen: options.seen } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) }] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw new Error(`workflow "${workflowId}": ${updateFailureReason(err)}`);
      throw updateLimit(err, workflowId) ?? err;
    }
  }

  /**
   * Every workflow of the namespace that awaits input, with its pending requests, queried in parallel with a
   * short timeout each (default 3 s). A workflow that cannot be queried is listed with `unreachable` (the reason).
   */
  async awaitingInput(options: { timeoutMs?: number } = {}): Promise<AwaitingWorkflow[]> {
    if (!(await this.searchAttributeRegistered())) throw new SearchAttributeNotRegisteredError(this.namespace);
    const found: Array<{ workflowId: string; runId: string; type: string; startTime: Date; taskQueue: string }> = [];
    for await (const wf of this.client.workflow.list({ query: `${AWAITING_INPUT_SEARCH_ATTRIBUTE} = true AND ExecutionStatus = 'Running'` })) {
      found.push({ workflowId: wf.workflowId, runId: wf.runId, type: wf.type, startTime: wf.startTime, taskQueue: wf.taskQueue });
    }
    const polled = new Map<string, Promise<boolean | undefined>>();
    const timeoutMs = options.timeoutMs ?? 3_000;
    return Promise.all(
      found.map(async (wf) => {
        const row: AwaitingWorkflow = { workflowId: wf.workflowId, runId: wf.runId, type: wf.type, startTime: wf.startTime, pending: [] };
        if (!polled.has(wf.taskQueue)) polled.set(wf.taskQueue, this.workerPolls(wf.taskQueue));
        if ((await polled.get(wf.taskQueue)) === false) {
          row.unreachable = `no worker polls task queue "${wf.taskQueue}"`;
          return row;
        }
        const deadline = Date.now() + timeoutMs;
        try {
          row.pending = await this.client.withDeadline(deadline, () => this.client.workflow.getHandle(wf.workflowId, wf.runId).query(pendingDetailsQuery));
        } catch (err) {
          row.unreachable = isDeadlineExceeded(err) || Date.now() >= deadline
            ? `no worker answered within ${Math.round(timeoutMs / 1000)} s (task queue "${wf.taskQueue}")`
            : `query failed: ${causeMessages(err)}`;
        }
        return row;
      }),
    );
  }

  /**
   * Submit an answer through the `submitAnswer` update: a rejection throws the error class of its type
   * (NoSuchPendingRequestError, RequestAlreadyResolvedError, RequestExpiredError, InvalidAnswerError,
   * AnswerTooLargeError). Fails within `timeoutMs` (default 15 s) with NoWorkerError when no worker takes it;
   * at once when no worker has polled the task queue recently.
   */
  async submit(workflowId: string, answer: Answer, options: { timeoutMs?: number } = {}): Promise<SubmitAnswerResult> {
    const { handle, taskQueue, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') throw new WorkflowClosedError(workflowId, status);
    try {
      return await this.withWorker(workflowId, taskQueue, 'take the answer', options.timeoutMs ?? WORKER_WAIT_MS, () => handle.executeUpdate(submitAnswerUpdate, { args: [answer] }), 'Or send it as a durable signal (`--signal`), validated when a worker picks it up', ' (the answer was not confirmed: a worker that picks the workflow up later may still apply it; `pending` shows whether the request still waits)');
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        const root = rootFailure(err);
        throw answerRejection(workflowId, answer.id, root.type, root.message);
      }
      throw updateLimit(err, workflowId, answer) ?? err;
    }
  }

  /**
   * Send an answer as the durable `answer` signal: accepted by Temporal even while no worker runs, and
   * validated when a worker picks it up (a bad one is logged and dropped; the request stays pending).
   */
  async signalAnswer(workflowId: string, answer: Answer): Promise<void> {
    const { handle, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') throw new WorkflowClosedError(workflowId, status);
    await handle.signal(answerSignal, answer);
  }

  answer(workflowId: string, requestId: string, data?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, data === undefined ? { id: requestId, ok: true } : { id: requestId, ok: true, data }, options);
  }

  decline(workflowId: string, requestId: string, options?: { timeoutMs?: number }): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, { id: requestId, ok: false, reason: 'declined' }, options);
  }

  cancel(workflowId: string, requestId: string, options?: { timeoutMs?: number }): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, { id: requestId, ok: false, reason: 'cancelled' }, options);
  }

  /** The server and tool a tool-call workflow was started with (from its first history event). */
  async callOf(workflowId: string): Promise<{ server?: string; tool?: string }> {
    try {
      const res = await this.client.workflowService.getWorkflowExecutionHistory({ namespace: this.namespace, execution: { workflowId }, maximumPageSize: 1 });
      const payload = res.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      const input = payload ? (this.client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as { server?: unknown; tool?: unknown; steps?: unknown }) : undefined;
      return { ...(typeof input?.server === 'string' ? { server: input.server } : {}), ...(typeof input?.tool === 'string' ? { tool: input.tool } : {}) };
    } catch {
      return {};
    }
  }

  /**
   * Wait for the tool call's result. A failed call throws the error class of its failure type
   * (UnknownServerFailure, UnknownToolFailure, McpServerUnavailableFailure, …, all ToolCallFailedError),
   * with the type, the message, and the server and tool of the call.
   */
  async result(workflowId: string): Promise<ToolResult> {
    const handle = await this.handle(workflowId);
    try {
      return await handle.result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const root = rootFailure(err);
        throw toolCallFailure({ workflowId, type: root.type, message: root.message, ...(await this.callOf(workflowId)) }, err);
      }
      throw err;
    }
  }
}
