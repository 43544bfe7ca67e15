/**
 * What the inbox lists: one page of the client's listing (src/client/listing.ts: visibility pages, each workflow's
 * memo), as rows: one per pending request, then one per workflow whose requests are not in the page, with the reason,
 * never dropped. Requests this inbox's people just answered are hidden until visibility catches up.
 */
import type { DurableMcpClient, ListedRequest, ListFilter, ListPage } from '../client/index.js';
import { isAddressedTo, isAssignee, type Person } from '../contract/assignees.js';

/** A workflow of the page whose requests are not listed, with the reason (never dropped). */
export interface UnreachableRow {
  kind: 'unreachable';
  workflowId: string;
  runId: string;
  reason: string;
}
/** A row of the inbox: a pending request (the listing's ListedRequest, without its start time), or an unreachable workflow. */
export type InboxRow = ({ kind: 'pending' } & Omit<ListedRequest, 'startTime' | 'queried'>) | UnreachableRow;

/** The rows of one page of the listing (in the listing's order), without the requests in `hidden` (workflowId + request id). */
export function inboxRows(page: ListPage, hidden: (workflowId: string, requestId: string) => boolean = () => false): InboxRow[] {
  const rows: InboxRow[] = [];
  for (const r of page.rows) {
    if (hidden(r.workflowId, r.request.id)) continue;
    rows.push({
      kind: 'pending',
      workflowId: r.workflowId,
      runId: r.runId,
      workflowType: r.workflowType,
      request: r.request,
      context: r.context,
      ...(r.tooLarge ? { tooLarge: true as const } : {}),
      ...(r.noWorker ? { noWorker: r.noWorker } : {}),
    });
  }
  for (const o of page.others) rows.push({ kind: 'unreachable', workflowId: o.workflowId, runId: o.runId, reason: o.reason });
  return rows;
}

export interface InboxView {
  filter: ListFilter;
  cursor?: string;
  limit?: number;
  /**
   * A signed-in person's view (docs/people.md): `answerable`, the requests they may answer (addressed to them or to
   * anyone); `mine`, those addressed to them or their roles.
   */
  for?: { person: Person; show: 'mine' | 'answerable' };
}

/** Whether a row belongs in a person's view (an unreachable workflow is shown to everyone: nobody knows whose it is). */
export function rowFor(row: InboxRow, view: InboxView): boolean {
  if (!view.for || row.kind !== 'pending') return true;
  const { person, show } = view.for;
  return show === 'mine' ? isAddressedTo(row.context.assignees, person) : isAssignee(row.context.assignees, person);
}

/** One page of the inbox (a SearchAttributeNotRegistered ClientError when the namespace cannot list workflows awaiting input). */
export async function listInbox(
  client: DurableMcpClient,
  view: InboxView,
  options: {
    queryTimeoutMs?: number;
    hidden?: (workflowId: string, requestId: string) => boolean;
    /** Shown even outside the view (a refused answer's form, with what was typed), when the person may answer it. */
    kept?: { workflowId: string; requestId: string };
  } = {},
): Promise<{ rows: InboxRow[]; page: ListPage }> {
  const page = await client.listPending({
    filter: view.filter,
    order: 'expiry',
    ...(view.cursor ? { cursor: view.cursor } : {}),
    ...(view.limit !== undefined ? { limit: view.limit } : {}),
    ...(options.queryTimeoutMs !== undefined ? { queryTimeoutMs: options.queryTimeoutMs } : {}),
  });
  // Only a request the person may answer is kept: the form of one not addressed to them would show its prompt and arguments.
  const kept = (r: InboxRow) =>
    r.kind === 'pending' &&
    r.workflowId === options.kept?.workflowId &&
    r.request.id === options.kept.requestId &&
    (!view.for || isAssignee(r.context.assignees, view.for.person));
  return { rows: inboxRows(page, options.hidden).filter((r) => rowFor(r, view) || kept(r)), page };
}
