/**
 * Who answered a call's requests, how and when, as the call's result reports it (`metadata.answers`, docs/failures.md):
 * never an answer's data. Pure: no workflow API.
 */
import type { ResolvedRecord } from './records.js';

/** One answered request of a call. */
export interface CallAnswer {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  /** Why it was not accepted: declined, expired, cancelled, … */
  reason?: string;
  /** Who answered (the inbox's person, the CLI's user, `expiry`, …). */
  by?: string;
  /** Where `by` comes from, as the worker checked it (docs/security.md "Who answered"): a proved source, cli, or claimed. */
  via?: string;
  /** With `via: "claimed"`: the source the sender named and did not prove. */
  claimed?: string;
  /** How strongly the worker knows who answered: issuer-verified, signed-link, proxy-header, inbox-token, claimed. */
  assurance?: string;
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
    ...(r.claimed ? { claimed: r.claimed } : {}),
    ...(r.assurance ? { assurance: r.assurance } : {}),
    ...(r.at ? { at: r.at } : {}),
  };
}
