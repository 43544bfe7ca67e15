/** The round gate's messages (MCP 2026-07-28 `input_required` rounds, the legacy `-32042` form). Pure types. */

/** What the next round's activity carries from the previous round (absent on a call's first round). */
export interface NextRound {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}
