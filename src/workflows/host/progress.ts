/**
 * The progress of a workflow's running calls: the last `notifications/progress` each call's activity reported (the
 * `progress` signal), as the `progress` query shows it. Not carried across continue-as-new; a call that ended reports
 * no more. Pure state: no workflow API.
 */
import type { CallProgress } from '../messages.js';

export class CallProgressBoard {
  private readonly last = new Map<string, CallProgress>();
  private readonly ended = new Set<string>();

  /** The `progress` signal of a running call's activity (`call`: its record, absent if the call is unknown). */
  record(
    call: { server: string; tool: string; step?: string } | undefined,
    { callId, progress, total, message }: { callId: string; progress: number; total?: number; message?: string },
  ): void {
    if (!call || this.ended.has(callId) || typeof progress !== 'number') return;
    const p: CallProgress = { callId, server: call.server, tool: call.tool, progress };
    if (call.step !== undefined) p.step = call.step;
    if (typeof total === 'number') p.total = total;
    if (typeof message === 'string') p.message = message;
    this.last.set(callId, p);
  }

  /** A call ended: it reports no more progress. */
  end(callId: string): void {
    this.last.delete(callId);
    this.ended.add(callId);
  }

  /** The last progress notification of each running call that reported any. */
  list(): CallProgress[] {
    return [...this.last.values()];
  }
}
