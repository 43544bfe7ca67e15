/**
 * What the inbox lists: every workflow of the namespace awaiting input (the DurableMcpAwaitingInput search
 * attribute), each asked for its `pendingDetails` in parallel with a short deadline. A workflow that cannot
 * be queried is listed as unreachable, with the reason, never dropped.
 */
import type { Client } from '@temporalio/client';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, pendingDetailsQuery, type PendingContext } from '../workflows/messages.js';
import type { Request } from '../contract/index.js';

export const DEFAULT_QUERY_TIMEOUT_MS = 3_000;

export interface PendingRow {
  kind: 'pending';
  workflowId: string;
  runId: string;
  request: Request;
  context: PendingContext;
}
export interface UnreachableRow {
  kind: 'unreachable';
  workflowId: string;
  runId: string;
  reason: string;
}
export type InboxRow = PendingRow | UnreachableRow;

function unreachableReason(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer to the pendingDetails query within ${timeoutMs} ms (is a worker polling its task queue?)`;
  const cause = (err as { cause?: { details?: string; message?: string } })?.cause;
  const detail = cause?.details || cause?.message;
  const message = `${(err as Error)?.message ?? String(err)}${detail ? `: ${detail}` : ''}`;
  if (/deadline|timed? ?out|DEADLINE_EXCEEDED/i.test(message)) return `no answer to the pendingDetails query within ${timeoutMs} ms (is a worker polling its task queue?)`;
  return message;
}

/** The rows of the inbox: pending requests, newest expiry first, then the workflows that could not be queried. */
export async function listInbox(client: Client, options: { queryTimeoutMs?: number } = {}): Promise<InboxRow[]> {
  const timeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const workflows: Array<{ workflowId: string; runId: string }> = [];
  for await (const wf of client.workflow.list({ query: `${AWAITING_INPUT_SEARCH_ATTRIBUTE} = true AND ExecutionStatus = 'Running'` })) {
    workflows.push({ workflowId: wf.workflowId, runId: wf.runId });
  }
  const results = await Promise.all(
    workflows.map(async (wf): Promise<InboxRow[]> => {
      const deadline = Date.now() + timeoutMs;
      try {
        const details = await client.withDeadline(deadline, () => client.workflow.getHandle(wf.workflowId, wf.runId).query(pendingDetailsQuery));
        return details.map((d) => ({ kind: 'pending', ...wf, request: d.request, context: d.context }));
      } catch (err) {
        return [{ kind: 'unreachable', ...wf, reason: unreachableReason(err, timeoutMs, Date.now() >= deadline) }];
      }
    }),
  );
  const rows = results.flat();
  const expiry = (r: InboxRow) => (r.kind === 'pending' && r.request.expiresAt ? Date.parse(r.request.expiresAt) : -Infinity);
  return rows.sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'pending' ? -1 : 1;
    return expiry(b) - expiry(a) || a.workflowId.localeCompare(b.workflowId);
  });
}
