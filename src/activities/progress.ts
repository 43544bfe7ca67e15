/**
 * Progress of a tool call: the server's MCP `notifications/progress` reach the workflow as the internal progress
 * signal (its `progress` query), at once, then at most once a second, the last one winning. The tool call also
 * puts the last one in its heartbeat details.
 */
import type { Context } from '@temporalio/activity';
import { PROGRESS_SIGNAL } from '../contract/index.js';
import { clientOf, type ActivityDeps } from './deps.js';

/** Progress reaches the workflow at most this often (each report is a signal: an event in its history). */
export const PROGRESS_EVERY_MS = 1000;

/** One MCP progress notification, as the workflow records it. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** An MCP progress notification, reduced to the fields it has. */
export function toProgress(p: Progress): Progress {
  return { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) };
}

/** Sends progress to the workflow as the internal progress signal: at once, then at most once a second (the last one wins). */
export function progressReporter(deps: ActivityDeps, ctx: Context, workflowId: string, runId: string | undefined, callId: string) {
  let last = 0;
  let queued: Progress | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const send = (p: Progress) => {
    last = Date.now();
    clientOf(deps, ctx)
      .workflow.getHandle(workflowId, runId)
      .signal(PROGRESS_SIGNAL, { callId, ...p })
      .catch((err) => ctx.log.warn('could not report progress to the workflow', { error: String(err) }));
  };
  return {
    report(p: Progress) {
      if (stopped) return;
      const wait = PROGRESS_EVERY_MS - (Date.now() - last);
      if (wait <= 0 && !timer) return send(p);
      queued = p;
      timer ??= setTimeout(
        () => {
          timer = undefined;
          if (queued && !stopped) send(queued);
          queued = undefined;
        },
        Math.max(0, wait),
      );
    },
    /** No more reports; with `flush`, a report still waiting for its turn is sent now (the last word of a call that waits). */
    stop(options: { flush?: boolean } = {}) {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (options.flush && timer && queued) send(queued);
      queued = undefined;
    },
  };
}
