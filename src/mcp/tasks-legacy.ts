/**
 * MCP Tasks in the 2025-11-25 form (experimental core, SEP-1686), as `@modelcontextprotocol/server-everything` and
 * servers of the v1 SDK speak them: a tool whose `execution.taskSupport` is `"required"` is called with `task`, which
 * answers `CreateTaskResult { task }` at once; the client then waits on `tasks/result`, which blocks until the task is
 * over and carries the server's own requests (`elicitation/create`, with the `related-task` `_meta`) on the session
 * meanwhile. Those reach the session's elicitation handler as any legacy-era elicitation does (the inline wait and
 * the release rules of docs/guarantees.md). `tasks/get` is polled alongside, at the server's `pollInterval`, for the call's
 * progress (its status and `statusMessage`). A call that is aborted (cancelled, released) sends `tasks/cancel`.
 *
 * `"optional"` tools are called without `task`: in this form a task lives in its session's server (a released or
 * crashed call runs again from `tools/call`, as any legacy call does), so a task buys nothing durable, and a plain
 * call asks its questions on the same session with one round trip less. See docs/tasks.md.
 */
import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isPlainObject, preview } from '../contract/json.js';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';

/** A task's states (SEP-1686). */
export const TERMINAL_TASK_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** The longest task id accepted (it is logged and sent back: outside input, docs/security.md). */
export const MAX_TASK_ID_LENGTH = 256;
/** The poll interval is kept within these bounds, whatever the server suggests (ms). */
export const MIN_POLL_MS = 250;
export const MAX_POLL_MS = 30_000;
/** `tasks/cancel` is best effort: it waits at most this long (ms). */
const CANCEL_TIMEOUT_MS = 5000;

/** A task as `tasks/get` (or `CreateTaskResult.task`) has it, the fields the worker reads. */
export interface TaskInfo {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollInterval?: number;
}

/** The value as sent (no SDK schema rebuilds it; the fields read are checked where they are read). */
const RAW: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'durable-mcp', validate: (value: unknown) => ({ value }) },
};

/** A tool the server lists with `execution.taskSupport: "required"`: it can only be called as a task. */
export function requiresTask(tool: { execution?: unknown } | undefined): boolean {
  const execution = tool?.execution;
  return isPlainObject(execution) && execution.taskSupport === 'required';
}

/** The server declared `tasks.requests.tools.call` (SEP-1686): it accepts `tools/call` as a task. */
export function serverRunsToolTasks(capabilities: unknown): boolean {
  const tasks = isPlainObject(capabilities) ? capabilities.tasks : undefined;
  const requests = isPlainObject(tasks) ? tasks.requests : undefined;
  const tools = isPlainObject(requests) ? requests.tools : undefined;
  return isPlainObject(tools) && tools.call !== undefined;
}

function violation(server: string, tool: string, what: string): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.ProtocolViolation, `server "${server}": tool "${tool}" (called as a task): ${what}`, { server, tool });
}

/** A task object read from the server, or why it is wrong. */
export function readTask(value: unknown, server: string, tool: string, where: string): TaskInfo {
  if (!isPlainObject(value)) throw violation(server, tool, `${where} must be an object, got ${preview(value)}`);
  const { taskId, status, statusMessage, pollInterval } = value;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH)
    throw violation(server, tool, `${where}.taskId must be a string of 1..${MAX_TASK_ID_LENGTH} characters, got ${preview(taskId)}`);
  if (typeof status !== 'string') throw violation(server, tool, `${where}.status must be a string, got ${preview(status)}`);
  return {
    taskId,
    status,
    ...(typeof statusMessage === 'string' ? { statusMessage: statusMessage.slice(0, 1000) } : {}),
    ...(typeof pollInterval === 'number' && Number.isFinite(pollInterval) ? { pollInterval } : {}),
  };
}

export function pollDelay(pollInterval: number | undefined): number {
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollInterval ?? 1000));
}

/** A task's status as a call's progress: how many status changes were seen, and what the server says. */
export function taskProgress(task: TaskInfo, seen: number): { progress: number; message: string } {
  return { progress: seen, message: task.statusMessage ? `${task.status}: ${task.statusMessage}` : task.status };
}

export interface LegacyTaskCall {
  client: Client;
  server: string;
  tool: string;
  /** The `tools/call` params (name, arguments, `_meta`); `task` is added here. */
  params: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (p: { progress: number; message?: string }) => void;
  /** Called with the task id as soon as the server created it. */
  onTask?: (taskId: string) => void;
}

/** Runs one tool call as a 2025-11-25 task; resolves with `tasks/result`'s value (a CallToolResult, `isError` kept). */
export async function callAsLegacyTask(call: LegacyTaskCall): Promise<unknown> {
  const { client, server, tool, signal } = call;
  const deadline = Date.now() + call.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const created = await client.request({ method: 'tools/call', params: { ...call.params, task: {} } } as never, RAW, {
    timeout: call.timeoutMs,
    maxTotalTimeout: call.timeoutMs,
    ...(signal ? { signal } : {}),
  });
  if (!isPlainObject(created) || !('task' in created)) {
    // A server may run a task-capable call inline after all: its result is the call's result.
    if (isPlainObject(created) && Array.isArray(created.content)) return created;
    throw violation(server, tool, `tools/call with "task" must answer CreateTaskResult { task }, got ${preview(created)}`);
  }
  let task = readTask(created.task, server, tool, 'task');
  const taskId = task.taskId;
  call.onTask?.(taskId);

  let over = false;
  const cancel = () => {
    if (over) return;
    over = true;
    void client.request({ method: 'tasks/cancel', params: { taskId } } as never, RAW, { timeout: CANCEL_TIMEOUT_MS }).catch(() => undefined);
  };
  signal?.addEventListener('abort', cancel, { once: true });
  // Progress: the task's status and message, each change once, polled at the server's interval until the task is over.
  let seen = 0;
  let lastReported = '';
  const report = (t: TaskInfo) => {
    const p = taskProgress(t, seen + 1);
    if (p.message === lastReported) return;
    lastReported = p.message;
    seen += 1;
    call.onProgress?.(p);
  };
  report(task);
  const polling = (async () => {
    while (!over && !(TERMINAL_TASK_STATUSES as readonly string[]).includes(task.status)) {
      await new Promise((r) => setTimeout(r, pollDelay(task.pollInterval)));
      if (over) return;
      try {
        const got = await client.request({ method: 'tasks/get', params: { taskId } } as never, RAW, { timeout: Math.min(left(), 30_000) });
        task = readTask(got, server, tool, 'tasks/get result');
        report(task);
      } catch {
        // A failed poll only costs progress: `tasks/result` says how the task ends.
      }
    }
  })();
  try {
    const result = await client.request({ method: 'tasks/result', params: { taskId } } as never, RAW, {
      timeout: left(),
      maxTotalTimeout: left(),
      ...(signal ? { signal } : {}),
    });
    over = true;
    return result;
  } catch (err) {
    if (signal?.aborted) cancel();
    throw err;
  } finally {
    over = true;
    signal?.removeEventListener('abort', cancel);
    void polling;
  }
}
