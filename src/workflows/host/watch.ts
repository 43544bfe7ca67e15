/**
 * The callers of the `waitForPending` update (docs/architecture.md): each waits, up to its timeout, for a request it has not
 * seen; all are answered at once, with the current list, when the run starts to finish (so their updates complete
 * and the run can end). Part of the host (index.ts); the update's handler is in handlers.ts.
 * Deterministic: workflow APIs only.
 */
import { condition } from '@temporalio/workflow';
import type { Request } from '../../contract/index.js';
import type { WaitForPendingInput } from '../messages.js';

/** At most this many `waitForPending` updates wait at once (with the inline waiters, under Temporal's ~10 in flight). */
export const MAX_PENDING_WATCHERS = 2;
/** Default wait of one `waitForPending` update. */
export const DEFAULT_WATCH_MS = 60_000;

/**
 * Whether the run goes on, or finishes (completes, fails or continues as new): a finishing run answers the callers
 * of `waitForPending` at once, with the current list, so their updates finish and the run can end.
 */
export const RunState = { Running: 'running', Finishing: 'finishing' } as const;
export type RunState = (typeof RunState)[keyof typeof RunState];

/** The callers of `waitForPending` that wait for a request they have not seen. */
export class PendingWatch {
  private watchers = 0;
  state: RunState = RunState.Running;

  constructor(
    private readonly hasUnseen: (seen: Set<string>) => boolean,
    private readonly pendingRequests: () => Request[],
  ) {}

  get full(): boolean {
    return this.watchers >= MAX_PENDING_WATCHERS;
  }

  async wait(input: WaitForPendingInput | undefined): Promise<Request[]> {
    const seen = new Set(input?.seen ?? []);
    const finishing = () => this.state === RunState.Finishing;
    if (!finishing() && !this.hasUnseen(seen)) {
      this.watchers++;
      try {
        await condition(() => finishing() || this.hasUnseen(seen), input?.timeoutMs ?? DEFAULT_WATCH_MS);
      } finally {
        this.watchers--;
      }
    }
    return this.pendingRequests();
  }
}
