/**
 * The options of the listing of pending requests (src/client/listing.ts): the filters, the page's size, its cursor,
 * and their checks, each naming the option and the value's problem.
 */
import type { Request } from '../contract/index.js';
import type { PendingContext } from '../workflows/messages.js';

/** The deadline of each `pendingDetails` query of a workflow without the listing memo (3 s). */
export const LIST_QUERY_TIMEOUT_MS = 3_000;
/** Default and largest number of rows of one page. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 1_000;
/** At most this many workflows without the memo are queried for one page (the rest are listed as `unlisted`). */
export const DEFAULT_QUERIES_WITHOUT_MEMO = 25;
/** With a filter visibility cannot apply (tool, step, text), at most this many workflows are read for one page. */
export const MAX_SCANNED = 5_000;

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
  queriesWithoutMemo?: number;
}

/** A listing option that is wrong: its message names the option and what is wrong with its value. */
export class ListOptionError extends Error {
  override name = 'ListOptionError';
}

export interface Cursor {
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

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

export function decodeCursor(text: string | undefined): Cursor {
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

/** Whether a request is kept by the filter (every filter, for rows visibility could not filter). */
export function keeps(filter: ListFilter, request: Request, context: PendingContext): boolean {
  if (filter.server !== undefined && context.server !== filter.server) return false;
  if (filter.kind !== undefined && request.kind !== filter.kind) return false;
  if (filter.tool !== undefined && context.tool !== filter.tool) return false;
  if (filter.step !== undefined && context.step !== filter.step) return false;
  if (filter.text !== undefined && !request.prompt.toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}

/** The checks of the list options, each naming the option and the value's problem. */
export function checkOptions(o: ListOptions): void {
  if (o.limit !== undefined && (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > MAX_PAGE_LIMIT))
    throw new ListOptionError(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got ${JSON.stringify(o.limit)}`);
  if (o.queriesWithoutMemo !== undefined && (!Number.isInteger(o.queriesWithoutMemo) || o.queriesWithoutMemo < 0))
    throw new ListOptionError(`queriesWithoutMemo must be a whole number from 0, got ${JSON.stringify(o.queriesWithoutMemo)}`);
  for (const [k, v] of Object.entries(o.filter ?? {})) {
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '' || v.length > 200)
      throw new ListOptionError(`filter ${k} must be a non-empty string of at most 200 characters, got ${JSON.stringify(v)}`);
  }
  if (o.filter?.kind !== undefined && o.filter.kind !== 'input' && o.filter.kind !== 'authorization')
    throw new ListOptionError(`filter kind must be "input" or "authorization", got ${JSON.stringify(o.filter.kind)}`);
}
