/**
 * The two MCP protocol eras durable-mcp speaks, one name for every plane (pure: workflows `import type` it).
 *
 * - `legacy` (≤ 2025-11-25): `initialize`, then the server sends `elicitation/create` on the live session; a URL
 *   it needs opened first comes as the `-32042` URLElicitationRequired error.
 * - `modern` (2026-07-28): `server/discover`, stateless; a call that needs input ends its round with
 *   `input_required` (input requests and an opaque `requestState`), and the client sends the next round.
 */
export type ProtocolEra = 'legacy' | 'modern';
