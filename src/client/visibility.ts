/**
 * What a visibility page (`listWorkflowExecutions`) gives back, read for the listing: a workflow's listing memo
 * decoded through the client's payload codec, its times and status, and the page token; and the query literal.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { LISTING_MEMO_KEY, type ListingMemo } from '../workflows/visibility.js';

/** A string literal of a visibility query. */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The memo a workflow keeps for the listing, decoded (through the client's payload codec), or undefined. */
export async function memoOf(client: Client, fields: Record<string, Payload> | null | undefined): Promise<ListingMemo | undefined> {
  let payload: Payload | undefined = fields?.[LISTING_MEMO_KEY];
  if (!payload) return undefined;
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  for (const codec of [...payloadCodecs].reverse()) [payload] = await codec.decode([payload]);
  const memo = payloadConverter.fromPayload(payload) as ListingMemo | undefined;
  return memo && memo.v === 1 && Array.isArray(memo.pending) ? memo : undefined;
}

export function tsToDate(t: { seconds?: unknown; nanos?: number | null } | null | undefined): Date {
  return new Date(t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);
}

/** A page's `nextPageToken` as the cursor keeps it (base64), or undefined on the last page. */
export function nextPageToken(token: Uint8Array | null | undefined): string | undefined {
  return token && token.length > 0 ? Buffer.from(token).toString('base64') : undefined;
}

const STATUS = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT', 'PAUSED'];
/** A workflow status code as the SDK names it (RUNNING, COMPLETED, …). */
export function statusName(code: number): string {
  return STATUS[code] ?? `STATUS_${code}`;
}
