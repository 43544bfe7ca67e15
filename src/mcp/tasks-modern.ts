/**
 * MCP Tasks, the 2026-07-28 extension `io.modelcontextprotocol/tasks` (SEP-2663; spec: modelcontextprotocol/ext-tasks):
 * the client declares the extension in its per-request capabilities, and the server may answer `tools/call` with
 * `CreateTaskResult { resultType: "task", taskId, status, ttlMs, pollIntervalMs }`. The client polls `tasks/get`
 * (`input_required` carries `inputRequests` in the multi-round-trip shape, `completed` the result inline, `failed`
 * the JSON-RPC error), answers with `tasks/update`, cancels with `tasks/cancel`, and over streamable HTTP sends
 * `Mcp-Name: <taskId>` on each. A server that needs the extension from a client that did not declare it answers
 * `-32021` with `data.requiredCapabilities`.
 *
 * The MCP SDK v2 rejects `resultType: "task"`: the transport takes such a result out of the SDK's way (./session.ts
 * reads it back, one call per session at a time), as modern.ts does for a missing `resultType`.
 */
import { ProtocolError, type Client, type StandardSchemaV1, type Transport } from '@modelcontextprotocol/client';
import { isPlainObject, preview } from '../contract/json.js';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';
import { interceptMessages } from './transports.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** JSON-RPC error: the server needs a client capability the request did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;
/** The longest task id accepted (logged, sent back, a header value: outside input, docs/security.md). */
export const MAX_TASK_ID_LENGTH = 256;
/** Largest `data` of a failed task's error kept in the call's failure (JSON characters). */
export const MAX_ERROR_DATA_CHARS = 8 * 1024;
const TASK_ID = /^[\x21-\x7e]{1,256}$/;

/** A task as the server reports it (the fields the worker reads, checked). */
export interface ModernTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  /** Ms from creation the server keeps the task; null: unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** `input_required`: key → server-to-client request (raw; the activity admits each). */
  inputRequests?: Record<string, unknown>;
  /** `completed`: the CallToolResult. */
  result?: Record<string, unknown>;
  /** `failed`: the JSON-RPC error. */
  error?: { code?: number; message?: string; data?: unknown };
}

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

function violation(server: string, what: string): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.ProtocolViolation, `server "${server}": ${what}`, { server });
}

/** A task object the server sent (`CreateTaskResult` or `tasks/get`), checked; a ProtocolViolation saying what is wrong. */
export function readModernTask(value: unknown, server: string, where: string): ModernTask {
  if (!isPlainObject(value)) throw violation(server, `${where} must be an object, got ${preview(value)}`);
  const { taskId, status, statusMessage, ttlMs, pollIntervalMs, inputRequests, result, error } = value;
  if (typeof taskId !== 'string' || !TASK_ID.test(taskId))
    throw violation(server, `${where}.taskId must be 1..${MAX_TASK_ID_LENGTH} printable ASCII characters, got ${preview(taskId)}`);
  if (typeof status !== 'string' || !STATUSES.has(status)) throw violation(server, `${where}.status must be a task status, got ${preview(status)}`);
  const task: ModernTask = { taskId, status: status as ModernTask['status'], ttlMs: null };
  if (typeof statusMessage === 'string') task.statusMessage = statusMessage.slice(0, 1000);
  if (typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 0) task.ttlMs = Math.floor(ttlMs);
  if (typeof pollIntervalMs === 'number' && Number.isFinite(pollIntervalMs) && pollIntervalMs >= 0) task.pollIntervalMs = Math.floor(pollIntervalMs);
  if (status === 'input_required') {
    if (!isPlainObject(inputRequests)) throw violation(server, `${where}: an input_required task must carry "inputRequests", got ${preview(inputRequests)}`);
    task.inputRequests = inputRequests;
  }
  if (status === 'completed') {
    if (!isPlainObject(result)) throw violation(server, `${where}: a completed task must carry "result", got ${preview(result)}`);
    task.result = result;
  }
  if (status === 'failed' && isPlainObject(error)) {
    task.error = {
      ...(typeof error.code === 'number' ? { code: error.code } : {}),
      ...(typeof error.message === 'string' ? { message: error.message.slice(0, 2000) } : {}),
      // The error's `data` rides the call's failure (a Temporal payload): kept only while small.
      ...(error.data !== undefined && (JSON.stringify(error.data)?.length ?? 0) <= MAX_ERROR_DATA_CHARS ? { data: error.data } : {}),
    };
  }
  return task;
}

/** The value as sent (checked by readModernTask where it is read). */
const RAW: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'durable-mcp', validate: (value: unknown) => ({ value }) },
};

/**
 * The `resultType: "task"` results of `tools/call`, taken out of the SDK's way at the transport: the SDK gets an empty
 * complete result, and `take()` hands the task to the session (a session serves one call at a time).
 */
export function acceptTaskResults(transport: Transport): { take(): unknown } {
  const calls = new Set<string | number>();
  let stashed: unknown;
  interceptMessages(transport, {
    outgoing: (message) => {
      const m = message as { id?: string | number; method?: string };
      if (m.id !== undefined && m.method === 'tools/call') {
        calls.add(m.id);
        if (calls.size > 1024) calls.delete(calls.values().next().value as string | number);
      }
      return message;
    },
    incoming: (message) => {
      const m = message as { id?: string | number; result?: unknown };
      if (m.id === undefined || !calls.delete(m.id) || !isPlainObject(m.result) || m.result.resultType !== 'task') return message;
      stashed = m.result;
      return { ...message, result: { resultType: 'complete', content: [] } } as typeof message;
    },
  });
  return {
    take() {
      const t = stashed;
      stashed = undefined;
      return t;
    },
  };
}

/** A `-32021` error naming the tasks extension, as a non-retryable MissingClientCapability naming the capability; else undefined. */
export function missingCapability(err: unknown, server: string, tool: string, tasks: 'auto' | 'off'): McpSourceError | undefined {
  if (!(err instanceof ProtocolError) || (err.code as number) !== MISSING_CLIENT_CAPABILITY) return undefined;
  const data = (err as { data?: unknown }).data;
  const required = isPlainObject(data) ? data.requiredCapabilities : undefined;
  const extensions = isPlainObject(required) && isPlainObject(required.extensions) ? Object.keys(required.extensions) : [];
  const others = isPlainObject(required) ? Object.keys(required).filter((k) => k !== 'extensions') : [];
  // Only the tasks extension is this module's: another capability's -32021 keeps its own handling (and message).
  if (!extensions.includes(TASKS_EXTENSION)) return undefined;
  const capability = [...extensions, ...others].map((n) => n.slice(0, 200)).join(', ');
  const hint = tasks === 'off' ? `; the server's config says "tasks": "off": set "tasks": "auto" to let it run the tool as a task` : '';
  return new McpSourceError(
    McpSourceErrorCodes.MissingClientCapability,
    `server "${server}": tool "${tool}" needs the client capability ${capability} (-32021)${hint}`,
    { server, tool, capability },
  );
}

/** The RPCs on a task (`tasks/get`, `tasks/update`, `tasks/cancel`), each with `Mcp-Name: <taskId>` over streamable HTTP. */
export class TaskRpc {
  constructor(
    private readonly client: Client,
    private readonly server: string,
    private readonly http: boolean,
  ) {}

  private options(taskId: string, timeoutMs: number, signal?: AbortSignal) {
    return { timeout: timeoutMs, ...(signal ? { signal } : {}), ...(this.http ? { headers: { 'Mcp-Name': taskId } } : {}) };
  }

  async get(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<ModernTask> {
    const raw = await this.client.request({ method: 'tasks/get', params: { taskId } } as never, RAW, this.options(taskId, timeoutMs, signal));
    const task = readModernTask(raw, this.server, 'tasks/get result');
    if (task.taskId !== taskId) throw violation(this.server, `tasks/get for task ${preview(taskId)} answered task ${preview(task.taskId)}`);
    return task;
  }

  async update(taskId: string, inputResponses: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await this.client.request({ method: 'tasks/update', params: { taskId, inputResponses } } as never, RAW, this.options(taskId, timeoutMs, signal));
  }

  async cancel(taskId: string, timeoutMs: number): Promise<void> {
    await this.client.request({ method: 'tasks/cancel', params: { taskId } } as never, RAW, this.options(taskId, timeoutMs));
  }
}
