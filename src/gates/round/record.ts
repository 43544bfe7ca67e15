/**
 * A round's requests (MCP 2026-07-28 `input_required`, and the legacy `-32042` form that shares them; a task's
 * questions too): their ids, derived from the call, the round and the server's key, and the round's answers as the
 * server reads them. Pure: the contract only.
 */
import { deriveRoundRequestId } from '../../contract/id.js';
import { answerToElicitResult, elicitationToRequest } from '../../contract/mapping.js';
import type { Answer, ElicitParams, ElicitResult, Request } from '../../contract/index.js';
import type { RoundKey } from './messages.js';

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
