/**
 * DurableMcpClient, typed helpers for Temporal clients: start a tool call, list a server's tools, list pending
 * requests (of one workflow, or of every workflow awaiting input), answer through `submitAnswer` (so rejections are seen:
 * `submit`, `accept`, `decline`, `cancelRequest`) or the `answer` signal, and wait for the result.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  WorkflowNotFoundError as TemporalWorkflowNotFoundError,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { Answer, Request, ToolResult } from '../contract/index.js';
import { loginWorkflowId } from '../contract/login.js';
import { DEFAULT_TASK_QUEUE } from '../contract/message-names.js';
import { InvalidDurationError } from '../workflows/duration.js';
import { FIELD_CHECKS, valueAt, type DurationField } from '../workflows/input.js';
import {
  pendingDetailsQuery,
  type AnswerBy,
  type AnswerSource,
  answerSignal,
  progressQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type CallProgress,
  type PendingRequest,
  type SubmitAnswerResult,
} from '../workflows/messages.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, awaitingInputKey, SEARCH_ATTRIBUTES } from '../workflows/visibility.js';
import type { mcpListTools, McpListToolsInput, McpToolInfo } from '../workflows/mcp-list-tools.js';
import type { McpToolCallInput } from '../workflows/mcp-tool-call.js';
import type { ExecuteMcpToolInput } from '../workflows/tool-call/index.js';
import type { EncryptionCodec } from '../codec/index.js';
import { firstAttemptOf, type FirstAttempt } from './first-attempt.js';
import { connectClient, registeredSearchAttributes } from './connection.js';
import {
  AnswerRejectedFailure,
  noWorker,
  searchAttributeNotRegistered,
  ToolCallFailure,
  unknownWorkflow,
  updateFailureReason,
  updateLimit,
  workflowClosed,
} from './errors.js';
import type { ListOptions } from './list-options.js';
import { listAwaitingInput, listPendingPage, type AwaitingWorkflow, type ListingSupport, type ListPage } from './listing.js';
import { listingAttributesMissing, listResolvedPage, type ResolvedRow } from './resolved.js';
import { startedCall } from './started-call.js';
import { watchLogin, type ListToolsOptions } from './login-watch.js';
import { statusName } from './visibility.js';
import { fromTemporalError } from './temporal-errors.js';
import { POLLER_FRESH_MS, resendUnprocessed, withWorker, workerPolls } from './workers.js';

export interface StartToolCallOptions extends ExecuteMcpToolInput {
  workflowId?: string;
  taskQueue?: string;
}

/** The duration fields of a tool call's input the client checks before it starts one, in this order. */
const START_DURATION_FIELDS: readonly DurationField[] = ['elicitation.expiresIn', 'elicitation.holdFor', 'toolTimeout', 'heartbeatTimeout'];

/**
 * How long a query or an answer waits for a worker by default. Longer than a workflow task's timeout (10 s by
 * default): a worker that stops can be handed a workflow task by its last sticky poll (its held call, released at
 * shutdown, completes and schedules one) and never complete it; Temporal gives that task to another worker only
 * when it times out, and an update or query sent meanwhile waits behind it.
 */
export const WORKER_WAIT_MS = 15_000;

/** What to do when no worker takes an answer: the durable signal needs none until it is validated. */
export const SIGNAL_HINT = 'Or send it as a durable signal (`--signal`), validated when a worker picks it up';

/** durable-mcp from any Temporal client: start tool calls, list and answer pending requests, follow results (docs/cli.md). */
export class DurableMcpClient {
  private registered: boolean | undefined;
  private support: ListingSupport | undefined;

  /**
   * `client` must carry the payload codec of the workers' keys when payloads are encrypted: use
   * `DurableMcpClient.connect()` or `connectClient()`, or give your Client `dataConverter: dataConverterOf(EncryptionCodec.fromEnv())`.
   */
  constructor(
    readonly client: Client,
    readonly options: { taskQueue?: string } = {},
  ) {}

  /**
   * Connect through `connectClient` (envconfig, and the payload codec of DURABLE_MCP_ENCRYPTION_KEYS unless `encryption`
   * says otherwise); close with `client.connection.close()`.
   */
  static async connect(
    options: { address?: string; namespace?: string; taskQueue?: string; encryption?: EncryptionCodec | false } = {},
  ): Promise<DurableMcpClient> {
    const { taskQueue, ...connect } = options;
    const { client } = await connectClient(connect);
    return new DurableMcpClient(client, { taskQueue });
  }

  /** The Temporal namespace this client works in. */
  get namespace(): string {
    return this.client.options.namespace;
  }

  /** Whether the namespace has the DurableMcpAwaitingInput search attribute. */
  async searchAttributeRegistered(): Promise<boolean> {
    if (this.registered === undefined) await this.listingSupport();
    return this.registered!;
  }

  /** Which of the listing's search attributes the namespace has (asked once), and whether its visibility store orders. */
  private async listingSupport(): Promise<ListingSupport> {
    if (!this.support) {
      const names = await registeredSearchAttributes(this.client.connection, this.namespace);
      this.registered = names.has(AWAITING_INPUT_SEARCH_ATTRIBUTE);
      this.support = { attributes: SEARCH_ATTRIBUTES.every((a) => names.has(a.name)) };
    }
    return this.support;
  }

  private async startOptions(options: StartToolCallOptions) {
    const { workflowId, taskQueue, ...input } = options;
    // Durations are checked here too, with the workflow's own checks, so a bad one fails before a workflow starts (naming the field).
    for (const field of START_DURATION_FIELDS) {
      const value = valueAt(input, field);
      const problem = FIELD_CHECKS[field](value);
      if (problem !== undefined) throw new InvalidDurationError(field, value, problem);
    }
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
  async startToolCallAndWaitForPending(
    options: StartToolCallOptions,
    wait: { timeoutMs?: number } = {},
  ): Promise<{ handle: WorkflowHandle; pending: Request[] }> {
    const startWorkflowOperation = new WithStartWorkflowOperation('mcpToolCall', { ...(await this.startOptions(options)), workflowIdConflictPolicy: 'FAIL' });
    const pending = await this.client.workflow.executeUpdateWithStart(waitForPendingUpdate, {
      args: [wait.timeoutMs !== undefined ? { timeoutMs: wait.timeoutMs } : {}],
      startWorkflowOperation,
    });
    return { handle: await startWorkflowOperation.workflowHandle(), pending };
  }

  /**
   * The tools of `server`, listed by a worker (the workflow `mcpListTools`) with the worker's MCP config: each as the
   * server sent it (name, description, `inputSchema` untouched, `outputSchema` and `annotations` when present).
   * Throws a NoWorker ClientError at once when no worker polls the task queue; a failed listing throws a ToolCallFailure of
   * its type (UnknownServer naming the configured servers, McpServerUnavailable, …), with `operation: "tools/list"`.
   */
  async listTools(server: string, options: ListToolsOptions = {}): Promise<McpToolInfo[]> {
    const taskQueue = options.taskQueue ?? this.options.taskQueue ?? DEFAULT_TASK_QUEUE;
    const workflowId = options.workflowId ?? `mcp-tools-${server}-${randomUUID().slice(0, 8)}`;
    const input: McpListToolsInput = {
      server,
      ...(options.expiresIn !== undefined ? { elicitation: { expiresIn: options.expiresIn } } : {}),
      ...(options.principal !== undefined ? { auth: { principal: options.principal } } : {}),
    };
    const expiresIn = valueAt(input, 'elicitation.expiresIn');
    const problem = FIELD_CHECKS['elicitation.expiresIn'](expiresIn);
    if (problem !== undefined) throw new InvalidDurationError('elicitation.expiresIn', expiresIn, problem);
    if ((await this.workerPolls(taskQueue)) === false)
      throw noWorker(workflowId, taskQueue, `list the tools of server "${server}"`, 'no worker has polled its task queue recently');
    const handle = await this.client.workflow.start<typeof mcpListTools>('mcpListTools', { taskQueue, workflowId, args: [input] });
    const watch = options.onLoginRequest ? watchLogin(this.client, loginWorkflowId(server, options.principal), options.onLoginRequest) : undefined;
    try {
      return await handle.result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw ToolCallFailure.of(err, { workflowId, server, operation: 'tools/list' });
      throw err;
    } finally {
      watch?.stop();
    }
  }

  /**
   * Wait (at most `timeoutMs`, default 2 s) until the first attempt of a started tool call shows how it went, from the
   * workflow's own state (described every `pollMs`): it completed, it waits for a person (the awaiting-input search
   * attribute), its activity failed once and is retried, or it still runs. A call that failed for good (an unknown
   * server or tool, a tool the allowlist refuses, arguments the server rejects) throws its ToolCallFailure.
   * The worker decides these (its config, its environment, the server's own tool list and argument checks), so the
   * client asks the call, not a copy of the config.
   */
  firstAttempt(workflowId: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<FirstAttempt> {
    return firstAttemptOf(this.client, workflowId, () => this.result(workflowId), options);
  }

  private async handle(workflowId: string): Promise<WorkflowHandle> {
    return (await this.describe(workflowId)).handle;
  }

  private async describe(workflowId: string) {
    const handle = this.client.workflow.getHandle(workflowId);
    try {
      // Raw: the SDK's describe() decodes the memo, and a memo this client cannot decode (another key) must not hide the status.
      const res = await this.client.workflowService.describeWorkflowExecution({ namespace: this.namespace, execution: { workflowId } });
      const info = res.workflowExecutionInfo;
      return { handle, taskQueue: info?.taskQueue ?? res.executionConfig?.taskQueue?.name ?? '', status: statusName(Number(info?.status ?? 0)) };
    } catch (err) {
      if (err instanceof TemporalWorkflowNotFoundError) throw unknownWorkflow(workflowId, err);
      // A namespace this client may not use is not "no such workflow": fromTemporalError tells them apart.
      throw fromTemporalError(err, { namespace: this.namespace, workflowId }) ?? err;
    }
  }

  /**
   * Whether a worker polls `taskQueue` (its last poll within `freshMs`, default POLLER_FRESH_MS: Temporal's minute, plus
   * 10 s). Undefined when the server does not say.
   */
  workerPolls(taskQueue: string, freshMs = POLLER_FRESH_MS): Promise<boolean | undefined> {
    return workerPolls(this.client, taskQueue, freshMs);
  }

  /** The pending requests of one workflow, with their context. Fails within `timeoutMs` (default 15 s) when no worker answers. */
  async pendingDetails(workflowId: string, options: { timeoutMs?: number } = {}): Promise<PendingRequest[]> {
    const { handle, taskQueue, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') return [];
    return withWorker(this.client, workflowId, taskQueue, 'list its pending requests', options.timeoutMs ?? WORKER_WAIT_MS, () =>
      handle.query(pendingDetailsQuery),
    );
  }

  /** The progress of the workflow's running tool calls (MCP progress notifications). Fails within `timeoutMs` when no worker answers. */
  async progress(workflowId: string, options: { timeoutMs?: number } = {}): Promise<CallProgress[]> {
    const { handle, taskQueue, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') return [];
    return withWorker(this.client, workflowId, taskQueue, 'report its progress', options.timeoutMs ?? WORKER_WAIT_MS, () => handle.query(progressQuery));
  }

  /**
   * Wait (up to `timeoutMs`, default 60 s, at most 10 min) until the workflow has a pending request whose id
   * is not in `seen`, and return its pending requests: a push instead of polling `pendingDetails`. Returns the
   * current list (maybe empty) on timeout and when the run closes. At most two callers may wait per workflow.
   */
  async waitForPending(workflowId: string, options: { seen?: string[]; timeoutMs?: number } = {}): Promise<Request[]> {
    const handle = await this.handle(workflowId);
    try {
      const args = { ...(options.seen ? { seen: options.seen } : {}), ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
      return await resendUnprocessed(() => handle.executeUpdate(waitForPendingUpdate, { args: [args] }));
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw new Error(`workflow "${workflowId}": ${updateFailureReason(err)}`);
      throw updateLimit(err, workflowId) ?? err;
    }
  }

  /**
   * Every workflow of the namespace that awaits input, with its pending requests, queried in parallel with a
   * short timeout each (default 3 s). A workflow that cannot be queried is listed with `unreachable` (the reason).
   */
  async listAwaitingInput(options: { timeoutMs?: number } = {}): Promise<AwaitingWorkflow[]> {
    const support = await this.listingSupport();
    if (!this.registered) throw searchAttributeNotRegistered(this.namespace);
    return listAwaitingInput(this.client, support, options);
  }

  /**
   * One page of the namespace's pending requests, from visibility only (each workflow's memo): filters, a cursor, and
   * the order by expiry where the visibility store allows it (src/client/listing.ts). No worker is asked, except for at
   * most `queriesWithoutMemo` workflows started before the listing memo.
   */
  async listPending(options: ListOptions = {}): Promise<ListPage> {
    const support = await this.listingSupport();
    if (!this.registered) throw searchAttributeNotRegistered(this.namespace);
    return listPendingPage(this.client, support, options);
  }

  /**
   * The latest resolutions (who, when, the outcome) of workflows resolved since `since` (default: 24 h ago), from
   * visibility; with `workflowId`, that workflow's only. Without the listing's search attributes nothing can be listed:
   * no rows, and `unlisted` says why.
   */
  async listResolved(
    options: { since?: Date; limit?: number; cursor?: string; workflowId?: string } = {},
  ): Promise<{ rows: ResolvedRow[]; nextCursor?: string; unlisted?: string }> {
    const support = await this.listingSupport();
    if (!support.attributes) return { rows: [], unlisted: listingAttributesMissing(this.namespace) };
    return listResolvedPage(this.client, { ...options, since: options.since ?? new Date(Date.now() - 24 * 60 * 60 * 1000) });
  }

  /**
   * Submit an answer through the `submitAnswer` update: a rejection throws an AnswerRejectedFailure of its type
   * (UnknownRequest, AlreadyResolved, Expired, InvalidAnswer, AnswerTooLarge). Fails within `timeoutMs` (default 15 s)
   * with a NoWorker ClientError when no worker takes it;
   * at once when no worker has polled the task queue recently. `by`: who answers (recorded beside the answer, shown in
   * the inbox's history; without it the workflow records "update").
   */
  async submit(
    workflowId: string,
    answer: Answer,
    /** `link`: an answer link's run (the inbox's link pages): the workflow refuses it on any other run. */
    /** `proof`: the inbox's proof of who answers (docs/security.md "Who answered"), which the worker checks. */
    options: { timeoutMs?: number; by?: string; source?: AnswerSource; person?: string; link?: { run: string }; proof?: string } = {},
  ): Promise<SubmitAnswerResult> {
    const { handle, taskQueue, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') throw workflowClosed(workflowId, status);
    try {
      return await withWorker(
        this.client,
        workflowId,
        taskQueue,
        'take the answer',
        options.timeoutMs ?? WORKER_WAIT_MS,
        () =>
          resendUnprocessed(() =>
            handle.executeUpdate(submitAnswerUpdate, {
              args: options.by !== undefined ? [answer, senderOf(options.by, options)] : [answer],
            }),
          ),
        SIGNAL_HINT,
        ' (the answer was not confirmed: a worker that picks the workflow up later may still apply it; `pending` shows whether the request still waits)',
      );
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw AnswerRejectedFailure.of(err, workflowId, answer.id);
      throw updateLimit(err, workflowId, answer) ?? err;
    }
  }

  /**
   * Send an answer as the durable `answer` signal: accepted by Temporal even while no worker runs, and
   * validated when a worker picks it up (a bad one is logged and dropped; the request stays pending).
   */
  async signalAnswer(workflowId: string, answer: Answer, options: { by?: string; source?: AnswerSource; person?: string } = {}): Promise<void> {
    const { handle, status } = await this.describe(workflowId);
    if (status !== 'RUNNING') throw workflowClosed(workflowId, status);
    if (options.by !== undefined) await handle.signal(answerSignal, answer, senderOf(options.by, options));
    else await handle.signal(answerSignal, answer);
  }

  /** Accept a pending request (with `data` for a form), through `submit`. */
  accept(workflowId: string, requestId: string, data?: Record<string, unknown>, options?: { timeoutMs?: number; by?: string }): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, data === undefined ? { id: requestId, ok: true } : { id: requestId, ok: true, data }, options);
  }

  /** Decline a pending request (the MCP server sees decline), through `submit`. */
  decline(workflowId: string, requestId: string, options?: { timeoutMs?: number; by?: string }): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, { id: requestId, ok: false, reason: 'declined' }, options);
  }

  /** Cancel one pending request (the MCP server sees cancel; the workflow goes on), through `submit`. */
  cancelRequest(workflowId: string, requestId: string, options?: { timeoutMs?: number; by?: string }): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, { id: requestId, ok: false, reason: 'cancelled' }, options);
  }

  /** The server and tool a tool-call workflow was started with, and its workflow type (from its first history event). */
  callOf(workflowId: string): Promise<{ server?: string; tool?: string; workflowType?: string }> {
    return startedCall(this.client, workflowId);
  }

  /**
   * Wait for the tool call's result. A failed call throws a ToolCallFailure of its failure type (UnknownServer,
   * UnknownTool, McpServerUnavailable, …), with the type, the message, and the server and tool of the call.
   */
  async result(workflowId: string): Promise<ToolResult> {
    const handle = await this.handle(workflowId);
    try {
      return await handle.result();
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const { workflowType, ...call } = await this.callOf(workflowId);
        throw ToolCallFailure.of(err, { workflowId, ...call, ...(workflowType === 'mcpAgent' ? { operation: 'agent' as const } : {}) });
      }
      throw err;
    }
  }
}

/** The sender of an answer: who (`by`), where that comes from, and the person it vouches for (N of M). */
function senderOf(by: string, options: { source?: AnswerSource; person?: string; link?: { run: string }; proof?: string }): AnswerBy {
  return {
    by,
    ...(options.source ? { source: options.source } : {}),
    ...(options.person ? { person: options.person } : {}),
    ...(options.link ? { link: { run: options.link.run } } : {}),
    ...(options.proof ? { proof: options.proof } : {}),
  };
}
