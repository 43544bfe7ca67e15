/**
 * What a workflow shows visibility (DESIGN §8): its memo (the pending requests with their context, bounded, and the
 * latest resolutions) and the values of the search attributes a list filters on (servers, kinds, next expiry). Pure:
 * the host writes them with `upsertMemo` and `upsertSearchAttributes` when they change. Deterministic.
 */
import type { Answer } from '../../contract/index.js';
import { MEMO_LIMITS, type MemoRequest, type ListingMemo, type PendingRequestDetails, type Resolution } from '../messages.js';

/** `text` cut to `max` characters, with "…" when it was longer. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A request too large for the memo: its id, kind, expiry and the start of its prompt (open it to answer). */
function stub(d: PendingRequestDetails): MemoRequest {
  const { id, kind, prompt, expiresAt } = d.request;
  return {
    request: { id, kind, prompt: cut(prompt, MEMO_LIMITS.promptShown), ...(expiresAt !== undefined ? { expiresAt } : {}) },
    context: d.context,
    tooLarge: true,
  };
}

/**
 * The memo of these pending requests (in order) and resolutions: each request whole when its JSON fits
 * MEMO_LIMITS.requestBytes, else a stub flagged `tooLarge`; at most MEMO_LIMITS.requests of them and
 * MEMO_LIMITS.totalBytes in all (the rest counted in `more`).
 */
export function listingMemo(details: PendingRequestDetails[], recent: Resolution[]): ListingMemo {
  const pending: MemoRequest[] = [];
  let size = JSON.stringify(recent).length;
  let more = 0;
  for (const d of details) {
    let listed: MemoRequest = { request: d.request, context: d.context };
    let bytes = JSON.stringify(listed).length;
    if (bytes > MEMO_LIMITS.requestBytes) {
      listed = stub(d);
      bytes = JSON.stringify(listed).length;
    }
    if (pending.length >= MEMO_LIMITS.requests || size + bytes > MEMO_LIMITS.totalBytes) {
      more++;
      continue;
    }
    pending.push(listed);
    size += bytes;
  }
  return { v: 1, pending, ...(more > 0 ? { more } : {}), ...(recent.length > 0 ? { recent } : {}) };
}

/** The values of the listing's search attributes for these pending requests. */
export function listingAttributes(details: PendingRequestDetails[]): { servers: string[]; kinds: string[]; nextExpiry: Date | undefined } {
  const servers = [...new Set(details.map((d) => d.context.server))].sort();
  const kinds = [...new Set(details.map((d) => d.request.kind))].sort();
  let next: number | undefined;
  for (const d of details) {
    const t = d.request.expiresAt ? Date.parse(d.request.expiresAt) : NaN;
    if (Number.isFinite(t) && (next === undefined || t < next)) next = t;
  }
  return { servers, kinds, nextExpiry: next === undefined ? undefined : new Date(next) };
}

export function outcomeOf(answer: Answer): Resolution['outcome'] {
  return answer.ok ? 'accepted' : answer.reason === 'expired' ? 'expired' : answer.reason === 'declined' ? 'declined' : 'cancelled';
}

/** Who a resolution is recorded as: what the answer's sender said (cut to 200 characters), else how it came. */
export function byOf(by: unknown, fallback: string): string {
  // Control characters become spaces (the name is shown on pages and terminals).
  // eslint-disable-next-line no-control-regex
  const text = typeof by === 'string' ? by.replace(/[\u0000-\u001f\u007f]/g, ' ').trim() : '';
  return text ? cut(text, 200) : fallback;
}

/** The resolution of a pending request. */
export function resolutionOf(d: PendingRequestDetails, answer: Answer, by: string, at: string): Resolution {
  return {
    id: d.request.id,
    kind: d.request.kind,
    server: d.context.server,
    tool: d.context.tool,
    ...(d.context.step !== undefined ? { step: d.context.step } : {}),
    prompt: cut(d.request.prompt, 200),
    outcome: outcomeOf(answer),
    by,
    at,
  };
}

/** Add a resolution to the newest-first list, at most MEMO_LIMITS.recent, one per request id. */
export function addResolution(recent: Resolution[], r: Resolution): Resolution[] {
  return [r, ...recent.filter((x) => x.id !== r.id)].slice(0, MEMO_LIMITS.recent);
}
