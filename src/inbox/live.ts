/**
 * Live updates of the inbox: one refresh loop per inbox process, whatever the number of open tabs. Tabs join with the
 * view they show (their filters); while any tab is open the loop renders each distinct view's first page once per
 * period and sends it to every tab of that view when it changed (a `same` beat otherwise), so the cost grows with the
 * views people look at, not with the tabs. Reading visibility asks no worker anything.
 */
import type { InboxView } from './list.js';

type Send = (event: 'rows' | 'same', data: string) => void;

interface ViewState {
  view: InboxView;
  tabs: Set<Send>;
  last?: string;
}

export class LiveHub {
  private readonly views = new Map<string, ViewState>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** How many times the loop has read the views (for tests and the bench: it does not grow with tabs). */
  refreshes = 0;

  constructor(
    private readonly render: (view: InboxView) => Promise<string>,
    private readonly periodMs: number,
  ) {}

  /** A tab opens this view: it gets the current rows at once, then every change. Returns its leave(). */
  join(view: InboxView, send: Send): () => void {
    const key = JSON.stringify([Object.entries(view.filter).sort(), view.for ?? null]);
    let state = this.views.get(key);
    if (!state) {
      state = {
        view: { filter: view.filter, ...(view.limit !== undefined ? { limit: view.limit } : {}), ...(view.for ? { for: view.for } : {}) },
        tabs: new Set(),
      };
      this.views.set(key, state);
    }
    state.tabs.add(send);
    if (state.last !== undefined) send('rows', state.last);
    else this.poke();
    this.timer ??= setInterval(() => this.poke(), this.periodMs);
    return () => {
      state.tabs.delete(send);
      if (state.tabs.size === 0) this.views.delete(key);
      if (this.views.size === 0) this.stop();
    };
  }

  /** Refresh now (an answer was just taken here), or right after the refresh under way. */
  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.refresh().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  private async refresh(): Promise<void> {
    if (this.views.size === 0) return;
    this.refreshes++;
    for (const state of [...this.views.values()]) {
      let html: string;
      try {
        html = await this.render(state.view);
      } catch (err) {
        const message = String((err as Error).message).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
        html = `<div id="rows"><p class="problem" role="alert">${message}</p></div>`;
      }
      const changed = html !== state.last;
      state.last = html;
      for (const send of state.tabs) send(changed ? 'rows' : 'same', changed ? html : '');
    }
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** How many tabs are open, over how many distinct views. */
  get size(): { tabs: number; views: number } {
    let tabs = 0;
    for (const v of this.views.values()) tabs += v.tabs.size;
    return { tabs, views: this.views.size };
  }

  close(): void {
    this.stop();
    this.views.clear();
  }
}

/**
 * Requests this inbox's people answered in the last minute: visibility lags a write by up to a second or so, so they
 * are hidden from every page of this inbox until it has caught up. (A stale row elsewhere cannot take a wrong answer:
 * the workflow's `submitAnswer` validates every answer against what is pending.)
 */
export class RecentlyAnswered {
  private readonly until = new Map<string, number>();
  constructor(private readonly keepMs = 60_000) {}

  add(workflowId: string, requestId: string): void {
    const now = Date.now();
    for (const [k, t] of this.until) if (t <= now) this.until.delete(k);
    this.until.set(`${workflowId}\n${requestId}`, now + this.keepMs);
  }

  has(workflowId: string, requestId: string): boolean {
    const t = this.until.get(`${workflowId}\n${requestId}`);
    return t !== undefined && t > Date.now();
  }
}
