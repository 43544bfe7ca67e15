/**
 * The `listMcpTools` activity (the workflow `mcpListTools` runs it): the tools of one server, each as the server
 * listed it. It leases a session from the worker's pool like a tool call (the same config, transports and
 * connection options), so a session opened for it has just listed them; an older one lists them again, since a
 * server's tools may change. A server behind OAuth is listed with its login's token; when it needs a (new) one, the
 * activity ends `login_required` like a tool call (with `waitForLogin`; nothing is held while a person signs in).
 * An agent's listing (`hints`, a local activity since Versions.agentFastPath) takes the session's list when it is younger
 * than LISTING_MAX_AGE_MS, and names the tools a call may run inline (a local activity): on a 2026-07-28 session of a
 * server with no OAuth, each tool that does not ask the old way (a call there cannot hold for a person: an
 * `input_required` round is an outcome, and the workflow runs the next attempt as the activity).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureTypes, jsonByteLength } from '../contract/index.js';
import { loginRequiredOf, type McpToolInfo } from '../mcp/index.js';
import { heartbeatEvery, serverConfigOf, type ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import { callLogin, loginLease, loginRequiredOutcome, oauthServer, type CallLogin } from './oauth.js';
import { MAX_RESULT_BYTES, type ListMcpToolsInput, type ListMcpToolsOutcome } from '../contract/activities.js';

/** An agent's listing takes a session's tool list younger than this (a server's tools may change; a call still checks its tool is listed). */
export const LISTING_MAX_AGE_MS = 30_000;

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
    // (A local activity has none: its workflow task's own heartbeat keeps it alive.)
    const beat = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
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
        const fresh = input.hints ? performance.now() - LISTING_MAX_AGE_MS : asked;
        tools = lease.session.toolsListedAt >= fresh ? lease.session.tools : await lease.session.listTools();
      } catch (err) {
        await lease.release({ discard: true });
        const needed = neededOf(err);
        if (needed) return loginRequiredOutcome(deps, login!, input.server, needed);
        failure(err, input.server);
      }
      const era = lease.session.era;
      await lease.release();
      const bytes = jsonByteLength(tools);
      if (bytes > MAX_RESULT_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `server "${input.server}" lists ${tools.length} tools in ${bytes} bytes of JSON, over the ${MAX_RESULT_BYTES} bytes a listing may return` +
            ' (a Temporal payload); narrow it with the server\'s "tools" allowlist in the MCP config',
          FailureTypes.ResultTooLarge,
        );
      }
      if (!input.hints) return tools;
      const inline = era === 'modern' && !oauth ? tools.filter((t) => !deps.pool.asksTheOldWay(input.server, t.name)).map((t) => t.name) : [];
      return { tools, inline };
    } finally {
      clearInterval(beat);
    }
  };
}
