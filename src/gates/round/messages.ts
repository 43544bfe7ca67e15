/**
 * The round gate's messages (MCP 2026-07-28 `input_required` rounds, the legacy `-32042` form), and its share of the
 * snapshot: the round a call waits in. Pure types.
 */

/** What the next round's activity carries from the previous round (absent on a call's first round). */
export interface NextRound {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

/** A key of a round: the server's key of one of its input requests, the id of the Request it became, and its mode. */
export interface RoundKey {
  key: string;
  id: string;
  mode: 'form' | 'url';
}

/**
 * A call waiting in a modern-era (MRTR) round: everything the next round needs besides the answers (which the
 * host holds as the round's requests resolve). Carried across continue-as-new (the snapshot's `rounds`), so the next
 * run resumes the call at this round (its number, `requestState` as given, the round's request ids), not at round 1.
 */
export interface RoundWait {
  round: number;
  requests: RoundKey[];
  /** Opaque; carried as given, never parsed or logged. */
  requestState?: string;
  form: 'mrtr' | 'url-error';
}
