/**
 * Who answered a call's requests, how and when, as the call's result reports it (`metadata.answers`, docs/failures.md):
 * never an answer's data. Pure: no workflow API.
 */
import type { ResolvedRecord } from './registry.js';

/** One answered request of a call. */
export interface CallAnswer {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  /** Why it was not accepted: declined, expired, cancelled, … */
  reason?: string;
  /** Who answered (the inbox's person, the CLI's user, `expiry`, …). */
  by?: string;
  /** Where `by` comes from (docs/people.md). */
  via?: string;
  /** When (workflow time, ISO 8601). */
  at?: string;
}

export function callAnswerOf(id: string, r: ResolvedRecord): CallAnswer {
  return {
    id,
    action: r.answer.ok ? 'accept' : r.answer.reason === 'declined' ? 'decline' : 'cancel',
    ...(r.answer.ok ? {} : { reason: r.answer.reason ?? 'cancelled' }),
    ...(r.by ? { by: r.by } : {}),
    ...(r.source ? { via: r.source } : {}),
    ...(r.at ? { at: r.at } : {}),
  };
}
