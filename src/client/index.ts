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
  WorkflowUpdateFailedError,
  type ClientOptions,
  type WorkflowHandle,
} from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { Answer, Request, ToolResult } from '../contract/index.js';
import {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  awaitingInputKey,
  pendingDetailsQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type PendingRequestDetails,
  type SubmitAnswerResult,
} from '../workflows/messages.js';
import type { McpToolCallInput } from '../workflows/tool-call.js';

export const DEFAULT_TASK_QUEUE = 'durable-mcp';

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
export class NoSuchPendingRequestError extends Error {
  override name = 'NoSuchPendingRequestError';
  constructor(
    readonly workflowId: string,
    readonly requestId: string,
    readonly detail: string,
  ) {
    super(`workflow "${workflowId}": ${detail}`);
  }
}
export class InvalidAnswerError extends Error {
  override name = 'InvalidAnswerError';
  constructor(
    readonly workflowId: string,
    readonly reason: string,
  ) {
    super(`workflow "${workflowId}" refused the answer: ${reason}`);
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

export interface StartToolCallOptions extends McpToolCallInput {
  workflowId?: string;
  taskQueue?: string;
}

export interface AwaitingWorkflow {
  workflowId: string;
  runId: string;
  type: string;
  startTime: Date;
  pending: PendingRequestDetails[];
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
    const handle = this.client.workflow.getHandle(workflowId);
    try {
      await handle.describe();
    } catch (err) {
      if (err instanceof TemporalWorkflowNotFoundError || /not found/i.test((err as Error).message)) throw new UnknownWorkflowError(workflowId);
      throw err;
    }
    return handle;
  }

  /** The pending requests of one workflow, with their context. */
  async pending(workflowId: string): Promise<PendingRequestDetails[]> {
    const handle = await this.handle(workflowId);
    return handle.query(pendingDetailsQuery);
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
      throw err;
    }
  }

  /** Every workflow of the namespace that awaits input, with its pending requests. */
  async awaitingInput(): Promise<AwaitingWorkflow[]> {
    if (!(await this.searchAttributeRegistered())) throw new SearchAttributeNotRegisteredError(this.namespace);
    const out: AwaitingWorkflow[] = [];
    for await (const wf of this.client.workflow.list({ query: `${AWAITING_INPUT_SEARCH_ATTRIBUTE} = true AND ExecutionStatus = 'Running'` })) {
      let pending: PendingRequestDetails[] = [];
      try {
        pending = await this.client.workflow.getHandle(wf.workflowId, wf.runId).query(pendingDetailsQuery);
      } catch {
        // no worker right now: still listed
      }
      out.push({ workflowId: wf.workflowId, runId: wf.runId, type: wf.type, startTime: wf.startTime, pending });
    }
    return out;
  }

  /** Submit an answer through the `submitAnswer` update: a rejection throws with the workflow's reason. */
  async submit(workflowId: string, answer: Answer): Promise<SubmitAnswerResult> {
    const handle = await this.handle(workflowId);
    try {
      return await handle.executeUpdate(submitAnswerUpdate, { args: [answer] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        const reason = updateFailureReason(err);
        if (/no pending request|no longer pending/.test(reason)) throw new NoSuchPendingRequestError(workflowId, answer.id, reason);
        throw new InvalidAnswerError(workflowId, reason);
      }
      throw err;
    }
  }

  answer(workflowId: string, requestId: string, data?: Record<string, unknown>): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, data === undefined ? { id: requestId, ok: true } : { id: requestId, ok: true, data });
  }

  decline(workflowId: string, requestId: string): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, { id: requestId, ok: false, reason: 'declined' });
  }

  cancel(workflowId: string, requestId: string): Promise<SubmitAnswerResult> {
    return this.submit(workflowId, { id: requestId, ok: false, reason: 'cancelled' });
  }

  /** Wait for the tool call's result. */
  async result(workflowId: string): Promise<ToolResult> {
    const handle = await this.handle(workflowId);
    return handle.result();
  }
}
