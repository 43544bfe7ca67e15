/**
 * The modern era's rounds (MCP 2026-07-28 `input_required`, and the legacy `-32042` form that shares them) in the
 * host: a round's requests (ids derived from the call, the round and the server's key), the round's answers as the
 * server reads them, and the calls that wait in a round, carried across continue-as-new so the next run resumes a
 * call at its round. Deterministic: the contract only.
 */
import { deriveRoundRequestId } from '../../contract/id.js';
import { answerToElicitResult, elicitationToRequest } from '../../contract/mapping.js';
import type { Answer, ElicitParams, ElicitResult, Request } from '../../contract/index.js';

/** A key of an MRTR round: the server's key of one of its input requests, the id of the Request it became, and its mode. */
export interface RoundKey {
  key: string;
  id: string;
  mode: 'form' | 'url';
}

/**
 * A call waiting in a modern-era (MRTR) round: everything the next round needs besides the answers (which the
 * host holds as the round's requests resolve). Carried across continue-as-new, so the next run resumes the call
 * at this round (its number, `requestState` as given, the round's request ids), not at round 1.
 */
export interface RoundWait {
  round: number;
  requests: RoundKey[];
  /** Opaque; carried as given, never parsed or logged. */
  requestState?: string;
  form: 'mrtr' | 'url-error';
}

/**
 * The requests of one round, each handed to `register` (as pending) in the server's order. Each goes through the
 * seed mapping (form → input, URL → authorization) with the params as the server sent them; a round asked again
 * derives the same ids.
 */
export function recordRound(
  callId: string,
  round: number,
  inputRequests: Record<string, { params: ElicitParams }>,
  register: (request: Request) => void,
): RoundKey[] {
  const out: RoundKey[] = [];
  for (const [key, { params }] of Object.entries(inputRequests)) {
    const id = deriveRoundRequestId(callId, round, key, params);
    register(elicitationToRequest(params, { id }));
    out.push({ key, id, mode: params.mode === 'url' ? 'url' : 'form' });
  }
  return out;
}

/** The round's answers as the server reads them (key → ElicitResult): no answer (expired, cancelled) is `cancel`. */
export function roundResponses(requests: RoundKey[], answerFor: (id: string) => Answer | undefined): Record<string, ElicitResult> {
  const out: Record<string, ElicitResult> = {};
  for (const r of requests) out[r.key] = answerToElicitResult(answerFor(r.id) ?? { id: r.id, ok: false, reason: 'cancelled' }, { mode: r.mode });
  return out;
}
