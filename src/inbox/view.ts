/**
 * What one request to the inbox asks to see (filters, a cursor and a page size from its query string) and the state of
 * the page that shows it: one page of the listing, without what this inbox's people just answered.
 */
import type { Context } from 'hono';
import type { Person } from '../contract/assignees.js';
import type { DurableMcpClient, ListFilter } from '../client/index.js';
import { listInbox, type InboxRow, type InboxView } from './list.js';
import type { RecentlyAnswered } from './live.js';
import type { PageState } from './page.js';

/** The view a request asks for: filters, a cursor and a page size from its query string (a bad one is a problem shown). */
export function viewOf(c: Context): InboxView {
  const q = (k: string) => {
    const v = c.req.query(k)?.trim();
    return v ? v : undefined;
  };
  const filter: ListFilter = {};
  for (const [param, key] of [
    ['server', 'server'],
    ['tool', 'tool'],
    ['kind', 'kind'],
    ['step', 'step'],
    ['type', 'workflowType'],
    ['text', 'text'],
  ] as const) {
    const v = q(param);
    if (v !== undefined) (filter as Record<string, string>)[key] = v;
  }
  const limit = q('limit');
  // A signed-in person sees what they may answer, or only what is addressed to them (`?show=mine`).
  const person = signedInPerson(c);
  return {
    filter,
    ...(q('cursor') ? { cursor: q('cursor') } : {}),
    ...(limit !== undefined ? { limit: Number(limit) } : {}),
    ...(person ? { for: { person, show: q('show') === 'mine' ? ('mine' as const) : ('answerable' as const) } } : {}),
  };
}

/** The person each request of the inbox comes from, as the access check found them (a verified sign-in or a proxy's header). */
const people = new WeakMap<Request, Person>();
export function setPerson(c: Context, person: Person): void {
  people.set(c.req.raw, person);
}
/** The person of a request who is checked against assignees (a token holder is not: the operator or a machine). */
export function signedInPerson(c: Context): Person | undefined {
  return people.get(c.req.raw);
}

/** The page state of a view (`extra`: a notice, a rejected form); a listing that fails is a problem shown, not an error. */
export type PageStates = (view: InboxView, extra?: Partial<PageState>) => Promise<PageState>;

/** The page states of one inbox: its client, the deadline of the query of a workflow without the memo, what it just answered. */
export function pageStates(dmc: DurableMcpClient, answered: RecentlyAnswered, queryTimeoutMs: number, temporalUi: string | undefined): PageStates {
  return async (view, extra = {}) => {
    let rows: InboxRow[] = [];
    let problem: string | undefined;
    let nextCursor: string | undefined;
    let order: string | undefined;
    try {
      const listed = await listInbox(dmc, view, {
        queryTimeoutMs,
        hidden: (w, r) => answered.has(w, r),
        ...(extra.rejected ? { kept: { workflowId: extra.rejected.workflowId, requestId: extra.rejected.requestId } } : {}),
      });
      rows = listed.rows;
      nextCursor = listed.page.nextCursor;
      order = listed.page.order;
    } catch (err) {
      problem = (err as Error).message;
    }
    return {
      rows,
      view,
      namespace: dmc.namespace,
      temporalUi,
      ...(nextCursor ? { nextCursor } : {}),
      ...(order ? { order } : {}),
      ...(problem ? { problem } : {}),
      ...extra,
    };
  };
}
