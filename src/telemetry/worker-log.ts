/**
 * The worker's log: a caller's mistake (an unknown server or tool, a tool the allowlist refuses, arguments the server
 * rejects) is one line naming the failure type, the server, the tool and the message, instead of the SDK's "Activity
 * failed" and "Workflow failed" entries with their stack traces; every other entry, internal errors included, is logged
 * as the SDK logs it. The CLI's worker and `dev` install it as the runtime's logger (src/cli/worker-command.ts).
 *
 * Every entry's text is outside text as often as not (a server's error message, its stderr, its tool names): before it
 * reaches the inner logger, each string of the message and the metadata (errors' messages and stacks, their causes and
 * details included) has its control characters escaped (`\n`, `\e`, `\x07`, `\u{202e}`: src/contract/control-chars.ts),
 * so no server writes a line of its own, a colour or a title into the log. What is escaped stays a string: a logger that
 * writes JSON writes valid JSON.
 */
import { DefaultLogger, type Logger, type LogLevel, type LogMetadata } from '@temporalio/worker';
import { escapeControlChars } from '../contract/control-chars.js';
import { FailureTypes } from '../contract/index.js';

/** The failure types that are the caller's mistake: retrying cannot help, and a stack trace says nothing more. */
export const CALLER_MISTAKES: ReadonlySet<string> = new Set([
  FailureTypes.UnknownServer,
  FailureTypes.UnknownTool,
  FailureTypes.ToolNotAllowed,
  FailureTypes.InvalidArguments,
]);

const calls = new WeakMap<object, { server: string; tool: string }>();
/** Remember which call an activity's error belongs to (the SDK's log entry has the workflow, not the call's server and tool). */
export function noteCallOf(err: unknown, server: string, tool: string): void {
  if (err !== null && typeof err === 'object') calls.set(err, { server, tool });
}

/** The failure type of an error (ApplicationFailure's `type`), or of its cause. */
function failureType(err: unknown): string | undefined {
  for (let e = err as { type?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.type === 'string') return e.type;
  }
  return undefined;
}

const SEVERITIES: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** How deep `logSafe` walks metadata (an error's cause chain, details); deeper values are left out. */
const MAX_DEPTH = 8;

/** An error's stack with its first line (`Name: message`, the outside text) escaped and its frames kept, one a line. */
function safeStack(err: Error): string | undefined {
  if (typeof err.stack !== 'string') return undefined;
  const header = `${err.name}: ${err.message}`;
  if (err.stack.startsWith(header)) return `${escapeControlChars(header)}${escapeControlChars(err.stack.slice(header.length), '\n')}`;
  return escapeControlChars(err.stack);
}

/**
 * `value` with every string's control characters escaped: plain objects and arrays copied, an Error copied as an Error
 * (its name, message and stack, its own fields: `type`, `details`, `cause`…), anything else (numbers, bigints, bytes) kept.
 */
export function logSafe(value: unknown, depth = 0, seen = new WeakMap<object, unknown>()): unknown {
  if (typeof value === 'string') return escapeControlChars(value);
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value) || value instanceof Date) return value;
  if (seen.has(value)) return seen.get(value);
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const v of value) copy.push(logSafe(v, depth + 1, seen));
    return copy;
  }
  if (value instanceof Error) {
    const copy = new Error(escapeControlChars(value.message));
    seen.set(value, copy);
    Object.defineProperty(copy, 'name', { value: escapeControlChars(value.name), configurable: true, writable: true });
    const stack = safeStack(value);
    Object.defineProperty(copy, 'stack', { value: stack, configurable: true, writable: true });
    if (value.cause !== undefined) Object.defineProperty(copy, 'cause', { value: logSafe(value.cause, depth + 1, seen), configurable: true, writable: true });
    for (const [k, v] of Object.entries(value))
      if (k !== 'message' && k !== 'stack' && k !== 'cause') (copy as unknown as Record<string, unknown>)[k] = logSafe(v, depth + 1, seen);
    return copy;
  }
  const copy: Record<string | symbol, unknown> = {};
  seen.set(value, copy);
  for (const [k, v] of Object.entries(value)) copy[escapeControlChars(k)] = logSafe(v, depth + 1, seen);
  // The SDK's own keys (the entry's timestamp, its component) are symbols: kept as they are.
  for (const k of Object.getOwnPropertySymbols(value)) copy[k] = (value as Record<symbol, unknown>)[k];
  return copy;
}

/** A logger that puts a caller's mistake on one line and passes everything else to `inner`. */
export class WorkerLogger implements Logger {
  /** Workflows whose call failed with a mistake already logged: their "Workflow failed" entry would say it again. */
  private readonly logged = new Set<string>();

  constructor(private readonly inner: Logger = new DefaultLogger('INFO')) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    // An entry the inner logger drops (TRACE and DEBUG at INFO) is neither escaped nor copied.
    if (this.inner instanceof DefaultLogger && SEVERITIES.indexOf(level) < SEVERITIES.indexOf(this.inner.level)) return;
    this.classify(level, escapeControlChars(message), meta);
  }

  /** Escapes the metadata on the way to `inner` (the message is escaped by `log`). */
  private emit(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (meta === undefined) this.inner.log(level, message);
    else this.inner.log(level, message, logSafe(meta) as LogMetadata);
  }

  private classify(level: LogLevel, message: string, meta?: LogMetadata): void {
    const error = meta?.error;
    const workflowId = typeof meta?.workflowId === 'string' ? meta.workflowId : undefined;
    if (message === 'Activity failed' && error) {
      const type = failureType(error);
      if (type && CALLER_MISTAKES.has(type)) {
        const call = calls.get(error as object);
        const where = call
          ? ` (server "${call.server}", tool "${call.tool}"${workflowId ? `, workflow ${workflowId}` : ''})`
          : workflowId
            ? ` (workflow ${workflowId})`
            : '';
        if (workflowId) this.remember(workflowId);
        this.emit(level, escapeControlChars(`${type}${where}: ${(error as Error).message}`));
        return;
      }
    }
    if (message === 'Workflow failed' && workflowId && this.logged.delete(workflowId)) return;
    this.emit(level, message, meta);
  }

  private remember(workflowId: string): void {
    this.logged.add(workflowId);
    // Bounded: a workflow that never logs its failure (retried elsewhere, say) is forgotten after 1,000 others.
    if (this.logged.size > 1000) this.logged.delete(this.logged.values().next().value as string);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
