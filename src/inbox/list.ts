/**
 * What the inbox lists: the client's listing of every workflow awaiting input (src/client/listing.ts), as
 * rows: one per pending request, then one per workflow that could not be queried, with the reason, never dropped.
 */
import type { AwaitingWorkflow, DurableMcpClient } from '../client/index.js';
import type { Request } from '../contract/index.js';
import type { PendingContext } from '../workflows/messages.js';

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

/** The rows of listed workflows: pending requests, newest expiry first, then the workflows that could not be queried. */
export function inboxRows(workflows: AwaitingWorkflow[]): InboxRow[] {
  const rows = workflows.flatMap(({ workflowId, runId, pending, unreachable }): InboxRow[] =>
    unreachable !== undefined
      ? [{ kind: 'unreachable', workflowId, runId, reason: unreachable }]
      : pending.map((d) => ({ kind: 'pending', workflowId, runId, request: d.request, context: d.context })),
  );
  const expiry = (r: InboxRow) => (r.kind === 'pending' && r.request.expiresAt ? Date.parse(r.request.expiresAt) : -Infinity);
  return rows.sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'pending' ? -1 : 1;
    return expiry(b) - expiry(a) || a.workflowId.localeCompare(b.workflowId);
  });
}

/** The rows of the inbox (SearchAttributeNotRegisteredError when the namespace cannot list workflows awaiting input). */
export async function listInbox(client: DurableMcpClient, options: { queryTimeoutMs?: number } = {}): Promise<InboxRow[]> {
  return inboxRows(await client.listAwaitingInput(options.queryTimeoutMs !== undefined ? { timeoutMs: options.queryTimeoutMs } : {}));
}
