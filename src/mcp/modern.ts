/**
 * The modern MCP era (2026-07-28) on the client side: `server/discover` (its verdict lets a later connect to the
 * same server skip the probe) and `input_required` rounds. Auto-fulfilment is off: a round's input requests go
 * back to the caller (the workflow asks the human durably), which sends the next round with the answers and the
 * round's `requestState`, echoed byte for byte.
 */
import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';

/** A round of a modern-era (MRTR) call: the answers to the previous round's requests and its state, echoed. */
export interface RoundInput {
  inputResponses?: Record<string, unknown>;
  /** Opaque; echoed byte for byte, never parsed or logged. */
  requestState?: string;
}

/** MCP 2026-07-28 `input_required`: the raw input requests (key → `{ method, params }`) and the opaque state. */
export interface InputRequiredRound {
  kind: 'input_required';
  inputRequests: Record<string, unknown>;
  requestState?: string;
}

/** The client options of the era: the SDK hands `input_required` back instead of answering it itself. */
export const MODERN_CLIENT_OPTIONS = { inputRequired: { autoFulfill: false } } as const;

/** The `tools/call` request options of the era: an `input_required` result is a result, not an error. */
export const MODERN_REQUEST_OPTIONS = { allowInputRequired: true } as const;

/** The era this client negotiated, to hand to the next connect to the same server (`ConnectOptions.prior`). */
export function discoveryVerdict(client: Client): PriorDiscovery {
  const discover = client.getDiscoverResult();
  return client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
}

/** The `tools/call` params of a round: the previous round's answers and its state, as given (absent on a first round). */
export function withRound(params: Record<string, unknown>, round: RoundInput): Record<string, unknown> {
  if (round.inputResponses !== undefined) params.inputResponses = round.inputResponses;
  if (round.requestState !== undefined) params.requestState = round.requestState;
  return params;
}

/** A `tools/call` result that is `input_required`, read; undefined for a complete result. */
export function readInputRequired(raw: unknown): InputRequiredRound | undefined {
  const r = raw as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown };
  if (!r || r.resultType !== 'input_required') return undefined;
  const isRecord = r.inputRequests && typeof r.inputRequests === 'object' && !Array.isArray(r.inputRequests);
  const inputRequests = isRecord ? (r.inputRequests as Record<string, unknown>) : {};
  return { kind: 'input_required', inputRequests, ...(typeof r.requestState === 'string' ? { requestState: r.requestState } : {}) };
}

/** The round after `round`: its answers (key → ElicitResult; none when it asked nothing) and its state, echoed. */
export function nextRound(round: InputRequiredRound, inputResponses: Record<string, unknown> | undefined): RoundInput {
  return { ...(inputResponses !== undefined ? { inputResponses } : {}), ...(round.requestState !== undefined ? { requestState: round.requestState } : {}) };
}
