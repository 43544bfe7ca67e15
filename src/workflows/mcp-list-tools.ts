/**
 * The workflow `mcpListTools`: the tools of one MCP server, listed through a worker (the activity `listMcpTools`,
 * on a session of the worker's pool, with the same config and connection as a tool call). Each tool is as the
 * server sent it: its name, description, `inputSchema` (key order and keywords untouched), `outputSchema` and
 * `annotations` when it has them, and any other field. Every page of `tools/list` is followed (at most
 * MAX_TOOL_PAGES); a server's `tools` allowlist in the MCP config applies. A server behind OAuth that needs a login
 * gets it as a tool call does: the listing asks the server's login, waits for it to settle (a refresh, or a person
 * signing in) and lists again.
 */
import { condition, proxyActivities } from '@temporalio/workflow';
import type { McpToolInfo } from '../contract/activities.js';
import type { Duration } from './duration.js';
import { DEFAULT_EXPIRES_IN_MS } from './host/index.js';
import { durationOption, invalidInput, listToolsInputProblem } from './input.js';
import { loginFailure, loginRequestOf, MAX_LOGIN_ROUNDS, requestLogin, tooManyLogins, useLoginWaits } from '../gates/login/workflow.js';
import type { DurableMcpActivities } from '../contract/activities.js';

export type { McpToolInfo };

/** The input of the workflow `mcpListTools`. */
export interface McpListToolsInput {
  /** The server's name in the worker's MCP config. */
  server: string;
  /** A server behind OAuth: how long the sign-in the listing asks for waits for a person (a Duration; default 24 h). */
  elicitation?: { expiresIn?: Duration };
  /** A server behind OAuth that signs in per call (`"principal": "per-call"`): whose login the listing uses. */
  auth?: { principal?: string };
}

/** Attempts of the activity before the listing fails: a server that cannot be reached fails within seconds, not minutes. */
export const LIST_TOOLS_MAX_ATTEMPTS = 3;

const { listMcpTools } = proxyActivities<DurableMcpActivities>({
  // Connect and list within the server's timeout, or wait for a session of a busy server (heartbeating meanwhile).
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: LIST_TOOLS_MAX_ATTEMPTS },
});

/**
 * The workflow: the tools of `server`. An unknown (or disabled) server fails it with `UnknownServer` (naming the
 * configured ones), a wrong input with `InvalidInput`, a server that cannot be reached with `McpServerUnavailable`; a
 * sign-in that expires, is declined or cancelled with `AuthorizationRequired`, a server whose OAuth cannot work (or
 * that refused MAX_LOGIN_ROUNDS new tokens in a row) with `AuthorizationFailed`.
 */
export async function mcpListTools(input: McpListToolsInput): Promise<McpToolInfo[]> {
  const problem = listToolsInputProblem(input);
  if (problem) invalidInput(problem);
  const expiresInMs = durationOption('elicitation.expiresIn', input.elicitation?.expiresIn, DEFAULT_EXPIRES_IN_MS);
  const principal = input.auth?.principal;
  let logins = 0;
  for (;;) {
    const outcome = await listMcpTools({ server: input.server, waitForLogin: true, ...(principal !== undefined ? { principal } : {}) });
    if (Array.isArray(outcome)) return outcome;
    // (Only an agent's listing asks for hints: this one never gets them.)
    if (!('login' in outcome)) return outcome.tools;
    // A server behind OAuth needs a (new) token: ask its login (one per server and principal, shared with the tool
    // calls), wait for it to settle (nothing is held meanwhile), then list again.
    if (++logins > MAX_LOGIN_ROUNDS) throw tooManyLogins(input.server, outcome.login.reason);
    const waits = useLoginWaits();
    const { loginId } = outcome.login;
    const seen = waits.count(loginId);
    const asked = await requestLogin(loginRequestOf(outcome, expiresInMs));
    if (asked.status === 'waiting') {
      await condition(() => waits.count(loginId) > seen);
      const failure = waits.last(loginId)?.failure;
      if (failure) throw loginFailure(failure);
    }
  }
}
