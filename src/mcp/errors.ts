/**
 * The MCP plane's errors (MCP without Temporal: the config, a session, the worker's session pool, `McpSource`): one
 * class, `McpSourceError`, with a `code` and an `isMcpSourceError` guard (the style of the MCP SDK v2's `SdkError` +
 * `code`). Named so it cannot be taken for the SDK's own errors (`McpError`, `ProtocolError`, `SdkError`).
 *
 * Where an error stands for a failure type (src/contract/failures.ts), its code IS that type, so the activities keep
 * one mapping table (src/activities/failures.ts): `McpConfigInvalid` for a wrong config, `McpServerUnavailable` for a
 * server that cannot be started or reached (and for a `${VAR}` not set in this worker's environment), and so on.
 * `BackChannelRefused` is the one code of its own: its failure type depends on the era it was refused in.
 */
import { FAILURES, FailureTypes } from '../contract/failures.js';
import type { LoginReason } from '../contract/login.js';

/** What an McpSourceError is about, as its `code`. */
export const McpSourceErrorCodes = {
  /** The config is wrong (`field` names where), or a server's config is found wrong when it starts. */
  McpConfigInvalid: FailureTypes.McpConfigInvalid,
  /**
   * The server could not be started or reached, or its tools not listed (`phase`; `permanent` when trying again cannot
   * help), or a `${VAR}` of its env or headers is not set in this process (`variable`).
   */
  McpServerUnavailable: FailureTypes.McpServerUnavailable,
  /** A call named a server the config does not have, or one it disables (`disabled`). */
  UnknownServer: FailureTypes.UnknownServer,
  /** `McpSource` was asked for a tool no connected server lists. */
  UnknownTool: FailureTypes.UnknownTool,
  /** The `tools/call` cannot go on (the session or the source is closed, a URL elicitation was required). */
  ToolCallFailed: FailureTypes.ToolCallFailed,
  /** The server sent what the protocol does not allow (a malformed result or tool list, an invalid tool definition). */
  ProtocolViolation: FailureTypes.ProtocolViolation,
  /** The server answered -32021: it needs a client capability this call did not declare (`data.requiredCapabilities`). */
  MissingClientCapability: FailureTypes.MissingClientCapability,
  /** The session pool is closed (the worker shuts down): no new lease. */
  WorkerShuttingDown: FailureTypes.WorkerShuttingDown,
  /** A modern-era tool still required input after `maxRounds` rounds. */
  RoundLimitExceeded: FailureTypes.RoundLimitExceeded,
  /** A server asked for input this client never declared (sampling, roots), or for input with no `waitFor` to ask. */
  UnsupportedInputRequest: FailureTypes.UnsupportedInputRequest,
  /** An input request broke the arrival rules of an elicitation (`McpSource`). */
  ElicitationRefused: FailureTypes.ElicitationRefused,
  /** A URL elicitation was declined or cancelled, so the call cannot be made again (`McpSource`). */
  UrlElicitationRefused: FailureTypes.UrlElicitationRefused,
  /**
   * A server behind OAuth wants a sign-in (`reason`; `generation`: the token it refused, 0 for none; `challenge`: its
   * `WWW-Authenticate` scope and resource metadata): the call does not sign in itself, its workflow asks the login.
   */
  AuthorizationRequired: FailureTypes.AuthorizationRequired,
  /** A step of a login's OAuth flow failed (`permanent` when the configuration or the servers must change). */
  AuthorizationFailed: FailureTypes.AuthorizationFailed,
  /**
   * The server refused a `tools/call` because its tool asked the old way (`elicitation/create`) where its SDK has no
   * channel for it (`era`: the session's). In the modern era, `era: "auto"` runs the call again in the legacy era
   * (docs/eras.md); in the legacy era the server's transport has none either (stateless HTTP).
   */
  BackChannelRefused: 'BackChannelRefused',
} as const;
export type McpSourceErrorCode = (typeof McpSourceErrorCodes)[keyof typeof McpSourceErrorCodes];

/** What an McpSourceError names, by code (each field only where it applies). */
export interface McpSourceErrorFields {
  server?: string;
  tool?: string;
  /** The config field at fault (McpConfigInvalid; McpServerUnavailable for a missing variable). */
  field?: string;
  /** The `${VAR}` not set in the environment (McpServerUnavailable). */
  variable?: string;
  /** Where connecting failed (McpServerUnavailable). */
  phase?: 'connect' | 'initialize' | 'list';
  /** Trying again cannot help (McpServerUnavailable: the command does not exist or is not executable, the listing is wrong). */
  permanent?: boolean;
  /** The server is configured but disabled (UnknownServer). */
  disabled?: boolean;
  /** The era of the session the call was refused on (BackChannelRefused). */
  era?: 'legacy' | 'modern';
  /**
   * BackChannelRefused: recognised by what happened, not by words (a first-round protocol error in the 2026-07-28 era,
   * from a server that offers older versions): the tool may ask the old way, or fail for a reason of its own.
   */
  suspected?: boolean;
  /** Why a sign-in is wanted (AuthorizationRequired). */
  reason?: LoginReason;
  /** The generation of the token the server refused, 0 when none was sent (AuthorizationRequired). */
  generation?: number;
  /** What the server's challenge asked for (AuthorizationRequired). */
  challenge?: LoginChallenge;
  /** The client capability the server needs (MissingClientCapability). */
  capability?: string;
}

/** What a server's `WWW-Authenticate` challenge asks for. */
export interface LoginChallenge {
  scope?: string;
  resourceMetadataUrl?: string;
}

/** An error of the MCP plane, with its code and what it names. The message names the server (and the tool) where known. */
export class McpSourceError extends Error {
  override readonly name = 'McpSourceError';
  readonly server?: string;
  readonly tool?: string;
  readonly field?: string;
  readonly variable?: string;
  readonly phase?: 'connect' | 'initialize' | 'list';
  readonly permanent: boolean = false;
  readonly disabled?: boolean;
  readonly era?: 'legacy' | 'modern';
  readonly suspected?: boolean;
  readonly reason?: LoginReason;
  readonly generation?: number;
  readonly challenge?: LoginChallenge;
  constructor(
    readonly code: McpSourceErrorCode,
    message: string,
    fields: McpSourceErrorFields = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    Object.assign(this, Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)));
  }

  /** Plain JSON, for `--json` and logs: the code as `error`, the message, and what the error names. */
  toJSON(): Record<string, unknown> {
    const { server, tool, field, variable, phase, disabled, era, reason, generation } = this;
    const fields = { server, tool, field, variable, phase, permanent: this.permanent || undefined, disabled, era, reason, generation };
    return { error: this.code, message: this.message, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
  }
}

/** Whether `err` is an McpSourceError (of one of `codes`, when given). */
export function isMcpSourceError<C extends McpSourceErrorCode>(err: unknown, ...codes: C[]): err is McpSourceError & { code: C } {
  return err instanceof McpSourceError && (codes.length === 0 || (codes as string[]).includes(err.code));
}

/**
 * Whether another attempt may succeed: as the code's failure type says (src/contract/failures.ts), but for the two codes
 * whose cause decides, McpServerUnavailable and AuthorizationFailed, where it is unless `permanent`.
 */
export function isRetryable(err: McpSourceError): boolean {
  if (err.code === McpSourceErrorCodes.McpServerUnavailable || err.code === McpSourceErrorCodes.AuthorizationFailed) return !err.permanent;
  return err.code !== McpSourceErrorCodes.BackChannelRefused && FAILURES[err.code].retryable;
}
