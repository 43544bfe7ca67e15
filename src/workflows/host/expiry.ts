/**
 * The expiry timers of pending requests: one workflow timer per request (started once per run), which resolves a
 * request nobody answered in time as `expired` (the MCP server is told `cancel`). Deterministic: workflow APIs only.
 */
import { condition, isCancellation } from '@temporalio/workflow';

export class ExpiryTimers {
  /** Requests whose expiry timer this run started (a request's timer is started once). */
  private readonly watched = new Set<string>();

  /** `isPending`: whether the request still waits; `expire`: resolve it as expired (its timer fired first). */
  constructor(
    private readonly isPending: (id: string) => boolean,
    private readonly expire: (id: string) => void,
  ) {}

  /** Whether this run started the request's timer. */
  has(id: string): boolean {
    return this.watched.has(id);
  }

  /** The request's call finished: forget its timer's bookkeeping. */
  forget(id: string): void {
    this.watched.delete(id);
  }

  /** Start the expiry timer of a pending request, once. */
  watch(id: string, expiresAtMs: number): void {
    if (this.watched.has(id)) return;
    this.watched.add(id);
    void (async () => {
      const wait = Math.max(0, expiresAtMs - Date.now());
      let answered: boolean;
      try {
        answered = await condition(() => !this.isPending(id), wait);
      } catch (err) {
        // The workflow is being cancelled: its timers are cancelled with it, and the run ends. Nothing awaits
        // this promise, so a rejection here would fail every workflow task of the cancellation.
        if (isCancellation(err)) return;
        throw err;
      }
      if (!answered) this.expire(id);
    })();
  }
}
