/**
 * The `listMcpTools` activity (the workflow `mcpListTools` runs it): the tools of one server, each as the server
 * listed it. It leases a session from the worker's pool like a tool call (the same config, transports and
 * connection options), so a session opened for it has just listed them; an older one lists them again, since a
 * server's tools may change. A server behind OAuth is listed with its login's token; when it needs a (new) one, the
 * activity ends `login_required` like a tool call (with `waitForLogin`; nothing is held while a person signs in).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureTypes, jsonByteLength } from '../contract/index.js';
import { loginRequiredOf, type McpToolInfo } from '../mcp/index.js';
import { heartbeatEvery, serverConfigOf, type ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import { callLogin, loginLease, loginRequiredOutcome, oauthServer, type CallLogin } from './oauth.js';
import { MAX_RESULT_BYTES, type ListMcpToolsInput, type ListMcpToolsOutcome } from '../contract/activities.js';

export function listMcpToolsActivity(deps: ActivityDeps) {
  return async function listMcpTools(input: ListMcpToolsInput): Promise<ListMcpToolsOutcome> {
    const ctx = Context.current();
    const asked = performance.now();
    const server = serverConfigOf(deps, input.server);
    // A server behind OAuth: the listing sends its login's token (read into this worker's cache).
    const oauth = oauthServer(server);
    let login: CallLogin | undefined;
    /** The login the error asks for, when the workflow waits for logins (a listing recorded before does not). */
    const neededOf = (err: unknown) => (input.waitForLogin && login ? loginRequiredOf(err, input.server, login.generation) : undefined);
    if (oauth) {
      const found = await callLogin(deps, ctx, oauth, input.principal);
      login = found.login;
      if (found.expired && input.waitForLogin)
        return loginRequiredOutcome(deps, login, input.server, { reason: 'expired', generation: login.generation, challenge: {} });
    }
    // The lease may wait for a session of a busy server: heartbeats tell Temporal this worker is alive meanwhile.
    const beat = setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
    try {
      let lease;
      try {
        lease = await deps.pool.lease(input.server, ctx.cancellationSignal, loginLease(login));
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        const needed = neededOf(err);
        if (needed) return loginRequiredOutcome(deps, login!, input.server, needed);
        failure(err, input.server);
      }
      let tools: McpToolInfo[];
      try {
        tools = lease.session.toolsListedAt >= asked ? lease.session.tools : await lease.session.listTools();
      } catch (err) {
        await lease.release({ discard: true });
        const needed = neededOf(err);
        if (needed) return loginRequiredOutcome(deps, login!, input.server, needed);
        failure(err, input.server);
      }
      await lease.release();
      const bytes = jsonByteLength(tools);
      if (bytes > MAX_RESULT_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `server "${input.server}" lists ${tools.length} tools in ${bytes} bytes of JSON, over the ${MAX_RESULT_BYTES} bytes a listing may return` +
            ' (a Temporal payload); narrow it with the server\'s "tools" allowlist in the MCP config',
          FailureTypes.ResultTooLarge,
        );
      }
      return tools;
    } finally {
      clearInterval(beat);
    }
  };
}
