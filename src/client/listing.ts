/**
 * The one listing of pending requests across a namespace (docs/inbox-at-scale.md), used by DurableMcpClient, the CLI's `pending`
 * and the inbox. It reads visibility pages only: each workflow keeps its pending requests with their context in its
 * memo (LISTING_MEMO_KEY, encoded by the payload codec) and what a list filters on in search attributes
 * (DurableMcpAwaitingInput, DurableMcpServers, DurableMcpKinds, DurableMcpNextExpiry). No worker is asked, except for
 * the rows of workflows started before the memo existed: those (at most `queriesWithoutMemo` a page) are asked for their
 * `pendingDetails` with a short deadline, as every row was before; past that bound they are listed as `unlisted`.
 * A workflow that cannot be queried is listed with the reason, never dropped.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { causeMessages } from '../contract/causes.js';
import type { ListedRequest } from '../contract/requests.js';
import { pendingDetailsQuery, type PendingRequest } from '../workflows/messages.js';
import {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  KINDS_SEARCH_ATTRIBUTE,
  NEXT_EXPIRY_SEARCH_ATTRIBUTE,
  SERVERS_SEARCH_ATTRIBUTE,
  type ListingMemo,
} from '../workflows/visibility.js';
import { isDeadlineExceeded } from './errors.js';
import {
  checkOptions,
  decodeCursor,
  DEFAULT_QUERIES_WITHOUT_MEMO,
  DEFAULT_PAGE_LIMIT,
  encodeCursor,
  keeps,
  LIST_QUERY_TIMEOUT_MS,
  MAX_PAGE_LIMIT,
  MAX_SCANNED,
  type ListFilter,
  type ListOptions,
} from './list-options.js';
import { memoOf, nextPageToken, queryLiteral, tsToDate } from './visibility.js';
import { pollsOf, type PollsCache } from './workers.js';

export type { ListedRequest } from '../contract/requests.js';

export interface AwaitingWorkflow {
  workflowId: string;
  runId: string;
  type: string;
  startTime: Date;
  pending: PendingRequest[];
  /** Set when the workflow could not be queried: why (e.g. no worker polls its task queue). */
  unreachable?: string;
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

/** What the listing knows of the namespace: which listing attributes are registered, whether visibility orders by expiry. */
export interface ListingSupport {
  /** DurableMcpServers, DurableMcpKinds, DurableMcpNextExpiry and DurableMcpResolvedAt are registered. */
  attributes: boolean;
  /** `ORDER BY` works (Elasticsearch visibility); undefined until tried. */
  orderBy?: boolean;
  /** Whether a worker polls each task queue, as last asked (kept POLLS_KEPT_MS: a page asks the server again only then). */
  polls?: PollsCache;
}

/** The visibility query of a page, and the filters it cannot apply (listing attributes not registered), applied to each row. */
function visibilityQuery(filter: ListFilter, support: ListingSupport): { where: string; filteredLocally: Array<keyof ListFilter> } {
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
  return { where: clauses.join(' AND '), filteredLocally };
}

/** What one page reading needs to list a workflow: the client, what it knows of the namespace, and how many workflows without the memo it may still query. */
interface Reading {
  client: Client;
  support: ListingSupport;
  timeoutMs: number;
  page: ListPage;
  queriesLeft: number;
}

/**
 * The rows of one workflow of a visibility page (from its memo, or its query when it has none and the budget allows),
 * and why some are not listed (`other`). Rows are not filtered yet.
 */
async function rowsOfWorkflow(
  reading: Reading,
  wf: temporal.api.workflow.v1.IWorkflowExecutionInfo,
  base: { workflowId: string; runId: string; workflowType: string },
): Promise<{ rows: ListedRequest[]; other?: UnlistedWorkflow }> {
  const { client, support } = reading;
  const startTime = tsToDate(wf.startTime).toISOString();
  let memo: ListingMemo | undefined;
  let undecodable: string | undefined;
  try {
    memo = await memoOf(client, wf.memo?.fields as Record<string, Payload> | undefined);
  } catch (err) {
    undecodable = `its memo cannot be decoded by this client: ${(err as Error).message}`;
  }
  const taskQueue = wf.taskQueue ?? '';
  const polls = pollsOf(client, (support.polls ??= new Map()), taskQueue);
  if (undecodable) return { rows: [], other: { ...base, kind: 'unreachable', reason: undecodable } };
  if (memo) {
    const noWorker = (await polls) === false ? `no worker polls task queue "${taskQueue}"` : undefined;
    const now = Date.now();
    const rows = memo.pending
      .filter((p) => !(p.request.expiresAt && Date.parse(p.request.expiresAt) <= now))
      .map((p) => ({
        ...base,
        startTime,
        request: p.request,
        context: p.context,
        ...(p.tooLarge ? { tooLarge: true as const } : {}),
        ...(noWorker ? { noWorker } : {}),
      }));
    if (!memo.more) return { rows };
    return { rows, other: { ...base, kind: 'more', reason: `${memo.more} more pending request(s) than its memo lists: open the workflow to see them` } };
  }
  if (reading.queriesLeft > 0) {
    reading.queriesLeft--;
    reading.page.queried++;
    const q = await queryPending(client, base.workflowId, base.runId, taskQueue, reading.timeoutMs, polls);
    if ('reason' in q) return { rows: [], other: { ...base, kind: 'unreachable', reason: q.reason } };
    return { rows: q.pending.map((d) => ({ ...base, startTime, request: d.request, context: d.context, queried: true as const })) };
  }
  return { rows: [], other: { ...base, kind: 'unlisted', reason: 'started before the listing memo: open the workflow to see its requests (one query)' } };
}

/**
 * One page of the pending requests of the namespace, from visibility (see the file's comment). `support` says which
 * listing attributes the namespace has (DurableMcpClient finds out once); what it learns of `ORDER BY` is kept there.
 */
export async function listPendingPage(client: Client, support: ListingSupport, options: ListOptions = {}): Promise<ListPage> {
  checkOptions(options);
  const filter = options.filter ?? {};
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const { where, filteredLocally } = visibilityQuery(filter, support);
  let order: ListPage['order'] = 'visibility';
  const wantsExpiry = options.order === 'expiry' && support.attributes && support.orderBy !== false;

  const page: ListPage = { rows: [], others: [], order, scanned: 0, queried: 0, filteredLocally };
  const reading: Reading = {
    client,
    support,
    page,
    timeoutMs: options.queryTimeoutMs ?? LIST_QUERY_TIMEOUT_MS,
    queriesLeft: options.queriesWithoutMemo ?? DEFAULT_QUERIES_WITHOUT_MEMO,
  };
  let cursor = decodeCursor(options.cursor);
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
    const next = nextPageToken(res.nextPageToken);
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
      page.scanned++;
      const listed = await rowsOfWorkflow(reading, wf, base);
      const { other } = listed;
      const rows = listed.rows.filter((r) => keeps(filter, r.request, r.context));
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
): Promise<{ pending: PendingRequest[] } | { reason: string }> {
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
      queriesWithoutMemo: Number.MAX_SAFE_INTEGER,
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
