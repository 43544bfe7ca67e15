/**
 * Failure mapping of the activities: every error a call or a listing meets becomes an ApplicationFailure whose
 * type is from the one documented list (src/contract/failures.ts), retryable or not.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { admitElicitation, FailureTypes, type ElicitParams } from '../contract/index.js';
import { isMcpSourceError, isRetryable, McpSourceErrorCodes, type McpSourceError } from '../mcp/index.js';

/** Throws `err` as the failure of a call to `server`. */
export function failure(err: unknown, server: string): never {
  throw failureOf(err, server);
}

/** The failure `err` is for a call to `server`: an ApplicationFailure of a documented type (or the activity's cancellation). */
export function failureOf(err: unknown, server: string): ApplicationFailure | CancelledFailure {
  // The MCP plane's errors: their code is their failure type (a BackChannelRefused's depends on its era). A ToolCallFailed
  // and a sign-in wanted where none can be asked for fail as any other error below.
  if (isMcpSourceError(err) && err.code !== McpSourceErrorCodes.ToolCallFailed && err.code !== McpSourceErrorCodes.AuthorizationRequired)
    return mcpFailure(err);
  // The server says the request itself is wrong (unknown tool, invalid arguments): retrying cannot help.
  if (err instanceof ProtocolError && err.code === ProtocolErrorCode.MethodNotFound)
    return ApplicationFailure.nonRetryable(`server "${server}": ${err.message}`, FailureTypes.UnknownTool);
  if (err instanceof ProtocolError && err.code === ProtocolErrorCode.InvalidParams)
    return ApplicationFailure.nonRetryable(`server "${server}": ${err.message}`, FailureTypes.InvalidArguments);
  if (err instanceof ApplicationFailure || err instanceof CancelledFailure) return err;
  return ApplicationFailure.retryable(`server "${server}": ${(err as Error)?.message ?? String(err)}`, FailureTypes.ToolCallFailed);
}

/**
 * The failure of an MCP plane error, of its code's type and retryability: an unset ${VAR} (McpServerUnavailable with
 * `variable`) is this worker's environment, not the config, so another worker (or this one, fixed) may have it; a
 * server that cannot be started for good (`permanent`) is not retried.
 */
function mcpFailure(err: McpSourceError): ApplicationFailure {
  if (err.code === McpSourceErrorCodes.BackChannelRefused) {
    // A tool that asks the old way where its server cannot (in `era: "auto"` the call loop runs a modern-era refusal
    // again in the legacy era first): every attempt would be refused the same way.
    const why =
      err.era === 'modern'
        ? '; the tool asks the old way (a server-initiated request), which the 2026-07-28 era has no channel for,' +
          ` and the server's config pins that era: set "era": "auto" or "legacy"`
        : '; the server has no channel for elicitation/create in the legacy era either (a stateless HTTP server): it cannot ask anyone';
    return ApplicationFailure.nonRetryable(`${err.message}${why}`, err.era === 'modern' ? FailureTypes.McpConfigInvalid : FailureTypes.ToolCallFailed);
  }
  return isRetryable(err) ? ApplicationFailure.retryable(err.message, err.code) : ApplicationFailure.nonRetryable(err.message, err.code);
}

/**
 * The arrival rules of every elicitation (contract/admit.ts), for a modern-era input request or a -32042 URL:
 * a round has no channel for an error per input request, so a refused one fails the call, naming the key.
 */
export function admittedOrFail(where: string, key: string, params: ElicitParams): ElicitParams {
  const admission = admitElicitation(params);
  if (!admission.ok) throw ApplicationFailure.nonRetryable(`${where}: input request "${key}": ${admission.message}`, FailureTypes.ElicitationRefused);
  return admission.params;
}
