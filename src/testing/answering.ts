/**
 * Answering in tests: `answerWith(handle, decide)` answers each request as it becomes pending (pushed by the
 * `waitForPending` update, not polled), until stopped or the workflow closes; `nextPending(handle)` returns
 * the next request for step-by-step tests. `accept`, `decline` and `cancel` build the answers.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { msToNumber, type Duration } from '@temporalio/common';
import type { Answer, Request } from '../contract/index.js';
import { resendUnprocessed } from '../client/workers.js';
import {
  pendingDetailsQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type PendingContext,
  type PendingRequest,
  type SubmitAnswerResult,
} from '../workflows/messages.js';

/** An answer without its id: the kit fills in the request's id. */
export type AnswerFor = Omit<Answer, 'id'> & { id?: string };

/** Accept, with form content (none for a URL-mode request). */
export const accept = (data?: Record<string, unknown>): AnswerFor => (data === undefined ? { ok: true } : { ok: true, data });
/** Decline: the MCP server sees `decline`. */
export const decline = (): AnswerFor => ({ ok: false, reason: 'declined' });
/** Cancel: the MCP server sees `cancel`. */
export const cancel = (): AnswerFor => ({ ok: false, reason: 'cancelled' });

/** Longest single wait (the update's own bound is 10 min of workflow time). */
const WAIT_SLICE_MS = 60_000;

async function closed(handle: WorkflowHandle): Promise<boolean> {
  try {
    const d = await handle.describe();
    return d.status.name !== 'RUNNING';
  } catch {
    return false;
  }
}

async function contextOf(handle: WorkflowHandle, id: string): Promise<PendingContext | undefined> {
  try {
    return (await handle.query(pendingDetailsQuery)).find((d) => d.request.id === id)?.context;
  } catch {
    return undefined;
  }
}

/** One wait for a request not in `seen`; `[]` when the run closed. */
async function waitOnce(handle: WorkflowHandle, seen: string[], timeoutMs: number): Promise<Request[] | 'closed'> {
  try {
    return await resendUnprocessed(() =>
      handle.executeUpdate(waitForPendingUpdate, { args: [{ seen, timeoutMs: Math.max(1, Math.min(WAIT_SLICE_MS, timeoutMs)) }] }),
    );
  } catch (err) {
    if (await closed(handle)) return 'closed';
    throw err;
  }
}

/**
 * The next pending request the caller has not seen (`seen`, default none): a PendingRequest, whose context is absent
 * when the request was resolved before it could be read. Rejects after `timeout` (real time, default 30 s) with the
 * workflow's id in the message, or at once when the workflow closed first.
 */
export async function nextPending(
  handle: WorkflowHandle,
  options: { timeout?: Duration; seen?: string[] } = {},
): Promise<Omit<PendingRequest, 'context'> & Partial<Pick<PendingRequest, 'context'>>> {
  const timeoutMs = options.timeout === undefined ? 30_000 : msToNumber(options.timeout);
  const deadline = Date.now() + timeoutMs;
  const seen = options.seen ?? [];
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`nextPending: workflow "${handle.workflowId}" had no new pending request within ${timeoutMs} ms`);
    const pending = await waitOnce(handle, seen, left);
    if (pending === 'closed') throw new Error(`nextPending: workflow "${handle.workflowId}" closed without a new pending request`);
    const request = pending.find((r) => !seen.includes(r.id));
    if (request) return { request, context: await contextOf(handle, request.id) };
  }
}

export interface Answerer {
  /** Every answer submitted, with the request it answered and what the MCP server will see. */
  readonly answered: Array<{ request: Request; answer: Answer; result: SubmitAnswerResult }>;
  /** Requests `decide` left unanswered (it returned undefined). */
  readonly skipped: Request[];
  /** Resolves when the workflow closed or `stop()` was called; rejects with the first error (a rejected answer, an unreachable workflow). */
  readonly done: Promise<void>;
  /** Stop answering (a wait in flight ends within its slice; `done` settles). */
  stop(): Promise<void>;
}

/**
 * Answer each request of `handle` as it becomes pending: `decide(request, context)` returns the answer (its id
 * is filled in) or undefined to leave the request alone. Runs until the workflow closes or `stop()`.
 */
export function answerWith(
  handle: WorkflowHandle,
  decide: (request: Request, context: PendingContext | undefined) => AnswerFor | Answer | undefined | Promise<AnswerFor | Answer | undefined>,
): Answerer {
  const answered: Answerer['answered'] = [];
  const skipped: Request[] = [];
  const seen: string[] = [];
  let stopped = false;
  let wake: (() => void) | undefined;
  const stopSignal = new Promise<void>((resolve) => (wake = resolve));
  const done = (async () => {
    while (!stopped) {
      const pending = await Promise.race([waitOnce(handle, seen, WAIT_SLICE_MS), stopSignal.then(() => 'stopped' as const)]);
      if (pending === 'stopped' || pending === 'closed') return;
      for (const request of pending) {
        if (seen.includes(request.id) || stopped) continue;
        seen.push(request.id);
        const decided = await decide(request, await contextOf(handle, request.id));
        if (!decided) {
          skipped.push(request);
          continue;
        }
        const answer = { ...decided, id: decided.id ?? request.id } as Answer;
        try {
          const result = await resendUnprocessed(() => handle.executeUpdate(submitAnswerUpdate, { args: [answer] }));
          answered.push({ request, answer, result });
        } catch (err) {
          // Resolved meanwhile (expired, answered elsewhere) is not an error of the test's answerer.
          if (err instanceof WorkflowUpdateFailedError && /no longer pending|no pending request/.test(String((err.cause as Error)?.message))) continue;
          if (await closed(handle)) return;
          throw new Error(
            `answerWith: workflow "${handle.workflowId}"` +
              ` refused the answer to ${request.id}: ${(err as { cause?: Error }).cause?.message ?? (err as Error).message}`,
          );
        }
      }
    }
  })();
  done.catch(() => undefined); // observed through `done` / `stop()`
  return {
    answered,
    skipped,
    done,
    async stop() {
      stopped = true;
      wake?.();
      await done;
    },
  };
}
