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
