/**
 * The worker's log: a caller's mistake (an unknown server or tool, a tool the allowlist refuses, arguments the server
 * rejects) is one line naming the failure type, the server, the tool and the message, instead of the SDK's "Activity
 * failed" and "Workflow failed" entries with their stack traces; every other entry, internal errors included, is logged
 * as the SDK logs it. The CLI's worker and `dev` install it as the runtime's logger (src/cli/worker-command.ts).
 */
import { DefaultLogger, type Logger, type LogLevel, type LogMetadata } from '@temporalio/worker';
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

/** A logger that puts a caller's mistake on one line and passes everything else to `inner`. */
export class WorkerLogger implements Logger {
  /** Workflows whose call failed with a mistake already logged: their "Workflow failed" entry would say it again. */
  private readonly logged = new Set<string>();

  constructor(private readonly inner: Logger = new DefaultLogger('INFO')) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
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
        this.inner.log(level, `${type}${where}: ${(error as Error).message}`);
        return;
      }
    }
    if (message === 'Workflow failed' && workflowId && this.logged.delete(workflowId)) return;
    this.inner.log(level, message, meta);
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
