/** The errors of the session pool and of `McpSource` (a session's own errors are in session.ts, the config's in config.ts). */

/** An error whose `name` is its class's name. */
class NamedError extends Error {
  override name = this.constructor.name;
}

/** A tool call named a server the config does not have. */
export class UnknownServerError extends NamedError {}
/** A tool call named a server the config disables. */
export class ServerDisabledError extends NamedError {}
/** The pool is closing (the worker shuts down): no new lease. */
export class PoolClosedError extends NamedError {}
/** `McpSource` was asked for a tool no connected server lists. */
export class UnknownToolError extends NamedError {}

/** A modern-era tool call still required input after `maxRounds` rounds (named like its failure type). */
export class RoundLimitExceededError extends Error {
  override name = 'RoundLimitExceeded';
}

/** A server asked for input this client never declared (sampling, roots), or for input with no `waitFor` to ask (named like its failure type). */
export class UnsupportedInputRequestError extends Error {
  override name = 'UnsupportedInputRequest';
}

/**
 * The server sent what the protocol does not allow (a malformed `tools/call` result, a result failing the era's
 * schema, a tool whose `x-mcp-header` declarations are invalid): the same request would get the same answer, so the
 * call fails at once (named like its failure type). The message names the server and what was wrong.
 */
export class ProtocolViolationError extends Error {
  override name = 'ProtocolViolation';
  constructor(
    message: string,
    readonly server: string,
  ) {
    super(message);
  }
}

/**
 * A `tools/call` the server refused because its tool asked the old way where its SDK has no channel for it: it tried to
 * send `elicitation/create` (the Python SDK 2.x's `ctx.elicit(...)`: JSON-RPC -32600 "Cannot send
 * 'elicitation/create': this transport context has no back-channel for server-initiated requests"). In the modern era
 * (2026-07-28 has no server-to-client requests) `era: "auto"` runs the call again in the legacy era (DESIGN §6b); in
 * the legacy era it means the server's transport has none either (stateless HTTP). `message` names the server.
 */
export class BackChannelRefusedError extends Error {
  override name = 'BackChannelRefused';
  constructor(
    message: string,
    readonly server: string,
    readonly tool: string,
    /** The era of the session the call was refused on. */
    readonly era: 'legacy' | 'modern',
  ) {
    super(message);
  }
}
