/**
 * The one listing of pending requests across a namespace (DESIGN §8), used by DurableMcpClient, the CLI's `pending`
 * and the inbox. It reads visibility pages only: each workflow keeps its pending requests with their context in its
 * memo (LISTING_MEMO_KEY, encoded by the payload codec) and what a list filters on in search attributes
 * (DurableMcpAwaitingInput, DurableMcpServers, DurableMcpKinds, DurableMcpNextExpiry). No worker is asked, except for
 * the rows of workflows started before the memo existed: those (at most `legacyQueries` a page) are asked for their
 * `pendingDetails` with a short deadline, as every row was before; past that bound they are listed as `unlisted`.
 * A workflow that cannot be queried is listed with the reason, never dropped.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { Request } from '../contract/index.js';
import { pendingDetailsQuery, type PendingContext, type PendingRequestDetails } from '../workflows/messages.js';
import {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  KINDS_SEARCH_ATTRIBUTE,
  LISTING_MEMO_KEY,
  NEXT_EXPIRY_SEARCH_ATTRIBUTE,
  RESOLVED_AT_SEARCH_ATTRIBUTE,
  SERVERS_SEARCH_ATTRIBUTE,
  type ListingMemo,
  type Resolution,
} from '../workflows/visibility.js';
import { causeMessages } from '../contract/causes.js';
import { isDeadlineExceeded } from './errors.js';
import { pollsOf, type PollsCache } from './workers.js';

/** The deadline of each `pendingDetails` query of a workflow without the listing memo (3 s). */
export const LIST_QUERY_TIMEOUT_MS = 3_000;
/** Default and largest number of rows of one page. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 1_000;
/** At most this many workflows without the memo are queried for one page (the rest are listed as `unlisted`). */
export const DEFAULT_LEGACY_QUERIES = 25;
/** With a filter visibility cannot apply (tool, step, text), at most this many workflows are read for one page. */
export const MAX_SCANNED = 5_000;

export interface AwaitingWorkflow {
  workflowId: string;
  runId: string;
  type: string;
  startTime: Date;
  pending: PendingRequestDetails[];
  /** Set when the workflow could not be queried: why (e.g. no worker polls its task queue). */
  unreachable?: string;
}

/** What a list keeps. `server`, `kind` and `workflowType` are applied by visibility; `tool`, `step` and `text` to each row. */
export interface ListFilter {
  server?: string;
  tool?: string;
  kind?: Request['kind'];
  /** A pipeline's step name. */
  step?: string;
  workflowType?: string;
  /** Text in the prompt (case-insensitive). */
  text?: string;
}

export interface ListOptions {
  filter?: ListFilter;
  /** Rows of the page (default 50, at most 1,000); the requests of one workflow are never split across pages. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** `expiry`: soonest expiry first, where the visibility store can order (Elasticsearch); else visibility's own order. */
  order?: 'expiry' | 'visibility';
  /** Deadline of each query of a workflow without the memo (default 3 s). */
  queryTimeoutMs?: number;
  /** At most this many workflows without the memo are queried for the page (default 25; 0: none). */
  legacyQueries?: number;
}

/** One pending request, listed. `tooLarge`: the memo holds only its start; open it (one query) to answer it. */
export interface ListedRequest {
  workflowId: string;
  runId: string;
  workflowType: string;
  startTime: string;
  request: Request;
  context: PendingContext;
  tooLarge?: true;
  /** From the workflow's `pendingDetails` query (a workflow started before the listing memo), not from its memo. */
  queried?: true;
  /** No worker polls the workflow's task queue (asked once per task queue, kept 10 s): an answer would wait for one. */
  noWorker?: string;
}
/** A workflow that awaits input whose requests are not in this page: why (`unreachable`: its query failed; `unlisted`: not queried). */
export interface UnlistedWorkflow {
  workflowId: string;
  runId: string;
  workflowType: string;
  kind: 'unreachable' | 'unlisted' | 'more';
  reason: string;
}
export interface ListPage {
  rows: ListedRequest[];
  /** Workflows of this page whose requests are not (all) in `rows`, with the reason. */
  others: UnlistedWorkflow[];
  /** Give it back as `cursor` for the next page; absent on the last. */
  nextCursor?: string;
  /** How rows are ordered: `expiry` (soonest first) or `visibility` (the store's order: newest start first on SQL stores). */
  order: 'expiry' | 'visibility';
  /** Workflows read from visibility for this page, and how many of them were queried (no memo). */
  scanned: number;
  queried: number;
  /** Filters that visibility could not apply here (listing attributes not registered), applied to each row instead. */
  filteredLocally: Array<keyof ListFilter>;
}

interface Cursor {
  /** Visibility's page token of the page being read (base64), and how many of its workflows were already returned. */
  t?: string;
  s: number;
  /**
   * The run ids of the workflow that starts the next page and of the last one returned. Read again, the page may have
   * lost rows (answered meanwhile) or gained some (newly waiting): it goes on from `r`, else after `l` when `r` has left
   * the list, and from `s` only when both have.
   */
  r?: string;
  l?: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}
function decodeCursor(text: string | undefined): Cursor {
  if (!text) return { s: 0 };
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (
      Number.isInteger(c.s) &&
      c.s >= 0 &&
      (c.t === undefined || typeof c.t === 'string') &&
      [c.r, c.l].every((id) => id === undefined || typeof id === 'string')
    )
      return c;
  } catch {
    // falls through
  }
  throw new ListOptionError(`cursor ${JSON.stringify(text.slice(0, 40))} is not a cursor of this listing (give back a page's nextCursor as it came)`);
}

export class ListOptionError extends Error {
  override name = 'ListOptionError';
}

/** A string literal of a visibility query. */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** What the listing knows of the namespace: which listing attributes are registered, whether visibility orders by expiry. */
export interface ListingSupport {
  /** DurableMcpServers, DurableMcpKinds, DurableMcpNextExpiry and DurableMcpResolvedAt are registered. */
  attributes: boolean;
  /** `ORDER BY` works (Elasticsearch visibility); undefined until tried. */
  orderBy?: boolean;
  /** Whether a worker polls each task queue, as last asked (kept POLLS_KEPT_MS: a page asks the server again only then). */
  polls?: PollsCache;
}

/** The memo a workflow keeps for the listing, decoded (through the client's payload codec), or undefined. */
async function memoOf(client: Client, fields: Record<string, Payload> | null | undefined): Promise<ListingMemo | undefined> {
  let payload: Payload | undefined = fields?.[LISTING_MEMO_KEY];
  if (!payload) return undefined;
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  for (const codec of [...payloadCodecs].reverse()) [payload] = await codec.decode([payload]);
  const memo = payloadConverter.fromPayload(payload) as ListingMemo | undefined;
  return memo && memo.v === 1 && Array.isArray(memo.pending) ? memo : undefined;
}

function tsToDate(t: { seconds?: unknown; nanos?: number | null } | null | undefined): Date {
  return new Date(t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);
}

function keeps(filter: ListFilter, request: Request, context: PendingContext): boolean {
  if (filter.server !== undefined && context.server !== filter.server) return false;
  if (filter.kind !== undefined && request.kind !== filter.kind) return false;
  if (filter.tool !== undefined && context.tool !== filter.tool) return false;
  if (filter.step !== undefined && context.step !== filter.step) return false;
  if (filter.text !== undefined && !request.prompt.toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}

/** The checks of the list options, each naming the option and the value's problem. */
function checkOptions(o: ListOptions): void {
  if (o.limit !== undefined && (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > MAX_PAGE_LIMIT))
    throw new ListOptionError(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got ${JSON.stringify(o.limit)}`);
  if (o.legacyQueries !== undefined && (!Number.isInteger(o.legacyQueries) || o.legacyQueries < 0))
    throw new ListOptionError(`legacyQueries must be a whole number from 0, got ${JSON.stringify(o.legacyQueries)}`);
  for (const [k, v] of Object.entries(o.filter ?? {})) {
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '' || v.length > 200)
      throw new ListOptionError(`filter ${k} must be a non-empty string of at most 200 characters, got ${JSON.stringify(v)}`);
  }
  if (o.filter?.kind !== undefined && o.filter.kind !== 'input' && o.filter.kind !== 'authorization')
    throw new ListOptionError(`filter kind must be "input" or "authorization", got ${JSON.stringify(o.filter.kind)}`);
}

/**
 * One page of the pending requests of the namespace, from visibility (see the file's comment). `support` says which
 * listing attributes the namespace has (DurableMcpClient finds out once); what it learns of `ORDER BY` is kept there.
 */
export async function listPendingPage(client: Client, support: ListingSupport, options: ListOptions = {}): Promise<ListPage> {
  checkOptions(options);
  const filter = options.filter ?? {};
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const legacyBudget = options.legacyQueries ?? DEFAULT_LEGACY_QUERIES;
  const timeoutMs = options.queryTimeoutMs ?? LIST_QUERY_TIMEOUT_MS;
  const clauses = [`${AWAITING_INPUT_SEARCH_ATTRIBUTE} = true`, `ExecutionStatus = 'Running'`];
  const filteredLocally: Array<keyof ListFilter> = [];
  if (filter.server !== undefined) {
    if (support.attributes) clauses.push(`${SERVERS_SEARCH_ATTRIBUTE} = ${queryLiteral(filter.server)}`);
    else filteredLocally.push('server');
  }
  if (filter.kind !== undefined) {
    if (support.attributes) clauses.push(`${KINDS_SEARCH_ATTRIBUTE} = ${queryLiteral(filter.kind)}`);
    else filteredLocally.push('kind');
  }
  if (filter.workflowType !== undefined) clauses.push(`WorkflowType = ${queryLiteral(filter.workflowType)}`);
  for (const k of ['tool', 'step', 'text'] as const) if (filter[k] !== undefined) filteredLocally.push(k);
  const where = clauses.join(' AND ');
  let order: ListPage['order'] = 'visibility';
  const wantsExpiry = options.order === 'expiry' && support.attributes && support.orderBy !== false;

  const page: ListPage = { rows: [], others: [], order, scanned: 0, queried: 0, filteredLocally };
  let cursor = decodeCursor(options.cursor);
  let legacyLeft = legacyBudget;
  const pageSize = Math.min(MAX_PAGE_LIMIT, Math.max(limit, filteredLocally.length > 0 ? 200 : limit));
  for (;;) {
    const request = (query: string) =>
      client.workflowService.listWorkflowExecutions({
        namespace: client.options.namespace,
        query,
        pageSize,
        ...(cursor.t ? { nextPageToken: Buffer.from(cursor.t, 'base64') } : {}),
      });
    let res;
    if (wantsExpiry) {
      try {
        res = await request(`${where} ORDER BY ${NEXT_EXPIRY_SEARCH_ATTRIBUTE} ASC`);
        support.orderBy = true;
        order = 'expiry';
      } catch (err) {
        if (!/ORDER BY/i.test((err as Error).message)) throw err;
        support.orderBy = false;
        res = await request(where);
      }
    } else res = await request(where);
    page.order = order;
    const executions = res.executions ?? [];
    const next = res.nextPageToken && res.nextPageToken.length > 0 ? Buffer.from(res.nextPageToken).toString('base64') : undefined;
    const indexOf = (runId: string | undefined) => (runId === undefined ? -1 : executions.findIndex((e) => e.execution?.runId === runId));
    const resumeAt = indexOf(cursor.r);
    const after = resumeAt >= 0 ? -1 : indexOf(cursor.l);
    let lastRun: string | undefined;
    for (let i = resumeAt >= 0 ? resumeAt : after >= 0 ? after + 1 : cursor.s; i < executions.length; i++) {
      const wf = executions[i]!;
      const base = {
        workflowId: wf.execution?.workflowId ?? '',
        runId: wf.execution?.runId ?? '',
        workflowType: wf.type?.name ?? '',
      };
      const startTime = tsToDate(wf.startTime).toISOString();
      page.scanned++;
      let memo: ListingMemo | undefined;
      let undecodable: string | undefined;
      try {
        memo = await memoOf(client, wf.memo?.fields as Record<string, Payload> | undefined);
      } catch (err) {
        undecodable = `its memo cannot be decoded by this client: ${(err as Error).message}`;
      }
      let rows: ListedRequest[] = [];
      let other: UnlistedWorkflow | undefined;
      const taskQueue = wf.taskQueue ?? '';
      const polls = pollsOf(client, (support.polls ??= new Map()), taskQueue);
      if (undecodable) {
        other = { ...base, kind: 'unreachable', reason: undecodable };
      } else if (memo) {
        const noWorker = (await polls) === false ? `no worker polls task queue "${taskQueue}"` : undefined;
        const now = Date.now();
        rows = memo.pending
          .filter((p) => !(p.request.expiresAt && Date.parse(p.request.expiresAt) <= now))
          .map((p) => ({
            ...base,
            startTime,
            request: p.request,
            context: p.context,
            ...(p.tooLarge ? { tooLarge: true as const } : {}),
            ...(noWorker ? { noWorker } : {}),
          }));
        if (memo.more) other = { ...base, kind: 'more', reason: `${memo.more} more pending request(s) than its memo lists: open the workflow to see them` };
      } else if (legacyLeft > 0) {
        legacyLeft--;
        page.queried++;
        const q = await queryPending(client, base.workflowId, base.runId, taskQueue, timeoutMs, polls);
        if ('reason' in q) other = { ...base, kind: 'unreachable', reason: q.reason };
        else rows = q.pending.map((d) => ({ ...base, startTime, request: d.request, context: d.context, queried: true as const }));
      } else {
        other = { ...base, kind: 'unlisted', reason: 'started before the listing memo: open the workflow to see its requests (one query)' };
      }
      rows = rows.filter((r) => keeps(filter, r.request, r.context));
      if (page.rows.length > 0 && page.rows.length + rows.length > limit) {
        // This workflow starts the next page.
        page.nextCursor = encodeCursor({ ...(cursor.t ? { t: cursor.t } : {}), s: i, r: base.runId, ...(lastRun ? { l: lastRun } : {}) });
        return page;
      }
      lastRun = base.runId;
      page.rows.push(...rows);
      if (other && (rows.length > 0 || other.kind !== 'more' || filteredLocally.length === 0)) page.others.push(other);
    }
    if (!next) return page;
    cursor = { t: next, s: 0 };
    if (page.rows.length >= limit || page.scanned >= MAX_SCANNED) {
      page.nextCursor = encodeCursor(cursor);
      return page;
    }
  }
}

/** The `pendingDetails` of one workflow without the memo, or why it could not be had. */
async function queryPending(
  client: Client,
  workflowId: string,
  runId: string,
  taskQueue: string,
  timeoutMs: number,
  polls: Promise<boolean | undefined>,
): Promise<{ pending: PendingRequestDetails[] } | { reason: string }> {
  if ((await polls) === false) return { reason: `no worker polls task queue "${taskQueue}"` };
  const deadline = Date.now() + timeoutMs;
  try {
    return { pending: await client.withDeadline(deadline, () => client.workflow.getHandle(workflowId, runId).query(pendingDetailsQuery)) };
  } catch (err) {
    return {
      reason:
        isDeadlineExceeded(err) || Date.now() >= deadline
          ? `no worker answered within ${Math.round(timeoutMs / 1000)} s (task queue "${taskQueue}")`
          : `query failed: ${causeMessages(err)}`,
    };
  }
}

/**
 * Every running workflow of the namespace that awaits input, with its pending requests: every page of
 * `listPendingPage`, grouped by workflow (a workflow without the memo is queried, with a deadline each).
 */
export async function listAwaitingInput(client: Client, support: ListingSupport, options: { timeoutMs?: number } = {}): Promise<AwaitingWorkflow[]> {
  const byId = new Map<string, AwaitingWorkflow>();
  let cursor: string | undefined;
  do {
    const page = await listPendingPage(client, support, {
      limit: MAX_PAGE_LIMIT,
      legacyQueries: Number.MAX_SAFE_INTEGER,
      ...(cursor ? { cursor } : {}),
      ...(options.timeoutMs !== undefined ? { queryTimeoutMs: options.timeoutMs } : {}),
    });
    const of = (w: { workflowId: string; runId: string; workflowType: string }, startTime?: string) => {
      let row = byId.get(w.workflowId);
      if (!row) {
        row = { workflowId: w.workflowId, runId: w.runId, type: w.workflowType, startTime: new Date(startTime ?? 0), pending: [] };
        byId.set(w.workflowId, row);
      }
      return row;
    };
    for (const r of page.rows) {
      const row = of(r, r.startTime);
      row.pending.push({ request: r.request, context: r.context });
      if (r.noWorker) row.unreachable = r.noWorker;
    }
    for (const o of page.others) if (o.kind === 'unreachable') of(o).unreachable = o.reason;
    cursor = page.nextCursor;
  } while (cursor);
  return [...byId.values()];
}

/** One resolved request, listed from its workflow's memo, with the workflow's status (RUNNING, COMPLETED, …). */
export interface ResolvedRow extends Resolution {
  workflowId: string;
  runId: string;
  workflowType: string;
  status: string;
}

/**
 * The latest resolutions of the namespace's workflows resolved since `since` (DurableMcpResolvedAt), newest first within
 * the page: at most `limit` workflows read (default 50), each with the resolutions its memo keeps.
 */
export async function listResolvedPage(
  client: Client,
  options: { since: Date; limit?: number; cursor?: string },
): Promise<{ rows: ResolvedRow[]; nextCursor?: string }> {
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new ListOptionError(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got ${limit}`);
  const cursor = decodeCursor(options.cursor);
  const res = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: `${RESOLVED_AT_SEARCH_ATTRIBUTE} > ${queryLiteral(options.since.toISOString())}`,
    pageSize: limit,
    ...(cursor.t ? { nextPageToken: Buffer.from(cursor.t, 'base64') } : {}),
  });
  const rows: ResolvedRow[] = [];
  for (const wf of res.executions ?? []) {
    const memo = await memoOf(client, wf.memo?.fields as Record<string, Payload> | undefined).catch(() => undefined);
    const status = statusName(Number(wf.status ?? 0));
    for (const r of memo?.recent ?? [])
      rows.push({ ...r, workflowId: wf.execution?.workflowId ?? '', runId: wf.execution?.runId ?? '', workflowType: wf.type?.name ?? '', status });
  }
  rows.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  const next = res.nextPageToken && res.nextPageToken.length > 0 ? Buffer.from(res.nextPageToken).toString('base64') : undefined;
  return { rows, ...(next ? { nextCursor: encodeCursor({ t: next, s: 0 }) } : {}) };
}

const STATUS = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT', 'PAUSED'];
/** A workflow status code as the SDK names it (RUNNING, COMPLETED, …). */
export function statusName(code: number): string {
  return STATUS[code] ?? `STATUS_${code}`;
}
