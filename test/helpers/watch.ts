import type { WorkflowHandle } from '@temporalio/client';
import type { DurableMcpClient } from '../../src/client/index.js';
import type { Request } from '../../src/contract/index.js';
import { pendingQuery } from '../../src/workflows/messages.js';
import { eventually, pollEveryMs } from './temporal.js';

/**
 * Watches a workflow's `pending` query until stopped, collecting every distinct request id it ever
 * shows: the evidence that a human was asked once. A query may fail while it watches (the worker or the
 * server may be down on purpose); `stop()` counts them, and rejects if not one query was answered, since
 * an empty watch is no evidence. `end()` only stops it (for clean-up paths).
 */
export function watchPending(handle: WorkflowHandle, everyMs = 100) {
  const seen = new Map<string, Request>();
  let stopped = false;
  let answered = 0;
  let failed = 0;
  let lastError: unknown;
  const loop = (async () => {
    while (!stopped) {
      try {
        // A query waits for a worker; with none running it would hang, so bound it.
        const pending = await handle.client.connection.withDeadline(Date.now() + 3000, () => handle.query(pendingQuery));
        answered++;
        for (const r of pending) if (!seen.has(r.id)) seen.set(r.id, r);
      } catch (err) {
        failed++;
        lastError = err;
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    seen,
    /** Queries answered and failed so far. */
    get counts() {
      return { answered, failed };
    },
    async end(): Promise<void> {
      stopped = true;
      await loop;
    },
    async stop(): Promise<Map<string, Request>> {
      stopped = true;
      await loop;
      if (answered === 0) {
        throw new Error(
          `watchPending(${handle.workflowId}): none of ${failed} pending queries was answered${lastError ? `; last error: ${(lastError as Error).message}` : ''}`,
        );
      }
      return seen;
    },
  };
}

/** Wait until the workflow has `count` pending requests, and return them. */
export async function waitForPending(handle: WorkflowHandle, count = 1, timeoutMs = 60_000): Promise<Request[]> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const p = await handle.query(pendingQuery);
      if (p.length >= count) return p;
    } catch (err) {
      last = err;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`no ${count} pending request(s) after ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, pollEveryMs()));
  }
}

/** Wait until `client.pendingDetails(workflowId)` lists a request, and return the list. */
export async function waitForPendingDetails(client: DurableMcpClient, workflowId: string): Promise<Awaited<ReturnType<DurableMcpClient['pendingDetails']>>> {
  return eventually(async () => {
    const pending = await client.pendingDetails(workflowId);
    return pending.length ? pending : undefined;
  }, `a pending request of ${workflowId}`);
}
