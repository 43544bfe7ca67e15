/**
 * The question gate, the workflow's side (the legacy era, MCP ≤ 2025-11-25): the server asks during a call
 * (`elicitation/create`), and the call's activity hands the question to its workflow (the `elicit` update) while it
 * holds the session. The question is answered from the record when it was answered before; else it is recorded as
 * pending and the update waits inline, up to the call's `holdFor` (or the request's expiry, if that comes first),
 * for an answer. Past that, the call is released (the release gate). Deterministic: workflow APIs only.
 */
import { condition } from '@temporalio/workflow';
import type { ElicitOutcome } from '../../contract/activities.js';
import type { Request } from '../../contract/index.js';
import type { ElicitationHost } from '../../workflows/host/index.js';
import { DEFAULT_HOLD_FOR_MS, expiresAtOf } from '../../workflows/host/registry.js';

/**
 * At most this many activities wait inline (inside an `elicit` update) at once. Temporal allows about
 * 10 updates in flight per run; past this, requests are released at once and answered by a re-run.
 */
export const MAX_INLINE_WAITERS = 6;

/**
 * The `elicit` update of a call's activity: the request's answer if it has one; else record it and wait inline
 * (up to the call's holdFor, or its expiry if that comes first) for an answer, or release the call.
 */
export async function elicit(host: ElicitationHost, callId: string, request: Request): Promise<ElicitOutcome> {
  const done = host.requests.answerFor(request.id);
  if (done) return { status: 'answered', answer: done };
  const id = request.id;
  const stored = host.register(request, callId, { deferExpiry: true });
  const expiresAtMs = expiresAtOf(stored);
  const holdForMs = host.requests.call(callId)?.holdForMs ?? DEFAULT_HOLD_FOR_MS;
  if (holdForMs <= 0 || host.waits.inline >= MAX_INLINE_WAITERS) {
    host.expiry.watch(id, expiresAtMs);
    return { status: 'released', request: stored };
  }
  // One timer while the call waits inline: the earlier of holdFor and the request's expiry (unless its
  // expiry timer already runs, as for a request asked again after a release).
  const untilExpiry = !host.expiry.has(id) ? Math.max(0, expiresAtMs - Date.now()) : Infinity;
  const expiryFirst = untilExpiry <= holdForMs;
  const woken = expiryFirst && untilExpiry === 0 ? false : await waitInline(host, id, expiryFirst ? untilExpiry : holdForMs);
  if (host.requests.isPending(id)) {
    if (expiryFirst && !woken) host.expire(id);
    else host.expiry.watch(id, expiresAtMs);
  }
  const answer = host.requests.answerFor(id);
  return answer ? { status: 'answered', answer } : { status: 'released', request: stored };
}

/** Wait inline (counted) until the request is resolved or released, or `timeoutMs` passes; false on timeout. */
async function waitInline(host: ElicitationHost, id: string, timeoutMs: number): Promise<boolean> {
  host.waits.inline++;
  try {
    return await condition(() => host.requests.isResolved(id) || host.waits.isReleased(id), timeoutMs);
  } finally {
    host.waits.inline--;
  }
}
