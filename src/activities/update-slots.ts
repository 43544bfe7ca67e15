/**
 * How many updates this worker has in flight on one workflow at once, and the wait for a free slot: a run's
 * `durable-mcp.elicit` updates (a call's elicitations), and a login's `durable-mcp.loginWanted` (calls that need it).
 *
 * Temporal refuses an update past `history.maxInFlightUpdates` (default 10) updates in flight on a run, and the
 * refusal costs more than the one update (Temporal 1.32, scripts/upstream/update-limit-clears-run.ts): the history
 * service drops the run's cached state, which aborts every update in flight on the run (the clients retry them), loses
 * the workflow task the worker is working on, and fails the queries buffered for it. A server that elicits 15 times at
 * once made that a loop: each round of retries passed the limit again, and a person's `pending` query failed at its
 * deadline. The workflow waits inline for at most MAX_INLINE_WAITERS (6) requests and releases the call past that, so
 * one slot more than that is all a call needs to learn that it is released; the rest of the limit stays free for the
 * people's answers (`submitAnswer`) and watchers (`waitForPending`, at most 2). Likewise 30 calls whose token expired
 * together sent 30 `loginWanted` updates to their login at once; each returns at once, so two at a time per worker is
 * enough, and leaves the limit to the inbox's `oauthCallback` and other workers.
 */

/** Slots per workflow run, per worker process: the workflow's MAX_INLINE_WAITERS (6) and one to learn of a release. */
export const ELICIT_UPDATES_PER_RUN = 7;

interface Run {
  busy: number;
  waiting: Array<() => void>;
}

export class UpdateSlots {
  private readonly runs = new Map<string, Run>();

  constructor(readonly perRun: number = ELICIT_UPDATES_PER_RUN) {
    if (!Number.isInteger(perRun) || perRun < 1) throw new RangeError(`UpdateSlots: perRun must be a whole number of at least 1, got ${String(perRun)}`);
  }

  /**
   * A slot of the run `workflowId`/`runId`: resolves with its release (call it once the update is done) when one is
   * free, or with undefined when `signal` aborts first (the wait is then forgotten, nothing is held).
   */
  acquire(workflowId: string, runId: string | undefined, signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const key = JSON.stringify([workflowId, runId ?? '']);
    let run = this.runs.get(key);
    if (!run) {
      run = { busy: 0, waiting: [] };
      this.runs.set(key, run);
    }
    const r = run;
    const releaser = () => {
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const next = r.waiting.shift();
        if (next) next();
        else if (--r.busy === 0) this.runs.delete(key);
      };
    };
    if (r.busy < this.perRun) {
      r.busy++;
      return Promise.resolve(releaser());
    }
    return new Promise((resolve) => {
      // A freed slot passes straight to the next waiter (busy stays the same).
      const take = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(releaser());
      };
      const onAbort = () => {
        const i = r.waiting.indexOf(take);
        if (i >= 0) r.waiting.splice(i, 1);
        resolve(undefined);
      };
      r.waiting.push(take);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Slots held and waits queued on a run (for tests and diagnostics). */
  usage(workflowId: string, runId: string | undefined): { busy: number; waiting: number } {
    const run = this.runs.get(JSON.stringify([workflowId, runId ?? '']));
    return { busy: run?.busy ?? 0, waiting: run?.waiting.length ?? 0 };
  }
}

/** How many `loginWanted` updates this worker has in flight on one login workflow at once. */
export const LOGIN_WANTED_PER_LOGIN = 2;

/** The slots of this process (every worker in it shares a workflow's limit on the Temporal server): elicitations per run. */
export const elicitSlots = new UpdateSlots(ELICIT_UPDATES_PER_RUN);
/** ... and `loginWanted` updates per login workflow (keyed by its workflow id alone). */
export const loginSlots = new UpdateSlots(LOGIN_WANTED_PER_LOGIN);
