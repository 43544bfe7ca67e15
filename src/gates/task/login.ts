/**
 * A call following an MCP task on a server behind OAuth (docs/tasks.md, docs/oauth.md): a watch that ended
 * `login_required` (its token expired, was revoked, or lacks a scope) asks the call's login as the call loop does
 * (../login/workflow.ts: one login per server and principal, a refresh or a person signing in, nothing held meanwhile);
 * once the login settled, tasks.ts watches the same task again (never a second `tools/call`), sending the answers the
 * refused watch did not. Deterministic: workflow APIs only.
 */
import { condition } from '@temporalio/workflow';
import { DEFAULT_EXPIRES_IN_MS, type ElicitationHost } from '../../workflows/host/index.js';
import { loginFailure, loginRequestOf, MAX_LOGIN_ROUNDS, requestLogin, tooManyLogins, useLoginWaits } from '../login/workflow.js';
import type { WatchMcpTaskLoginRequired } from '../../contract/activities.js';

/**
 * Ask the login a watch wants and wait until it settles: true once it did (watch again), false when `timeoutMs` (the
 * task's time left) passed first. `inARow`: the watches in a row that ended so, this one included (a watch that moved
 * the task on starts the count again: a task that works for days refreshes its token as often as it expires); past
 * MAX_LOGIN_ROUNDS the call fails `AuthorizationFailed`. A login that fails (expired, declined, signed out) fails the call
 * with its failure.
 */
export async function loginForTask(
  host: ElicitationHost,
  callId: string,
  server: string,
  outcome: WatchMcpTaskLoginRequired,
  inARow: number,
  timeoutMs: number | undefined,
): Promise<boolean> {
  if (inARow > MAX_LOGIN_ROUNDS) throw tooManyLogins(server, outcome.login.reason);
  const waits = useLoginWaits();
  const { loginId } = outcome.login;
  const seen = waits.count(loginId);
  const asked = await requestLogin(loginRequestOf(outcome, host.requests.call(callId)?.expiresInMs ?? DEFAULT_EXPIRES_IN_MS));
  if (asked.status !== 'waiting') return true;
  const settled = () => waits.count(loginId) > seen;
  if (!(timeoutMs === undefined ? await condition(settled).then(() => true) : await condition(settled, timeoutMs))) return false;
  const failure = waits.last(loginId)?.failure;
  if (failure) throw loginFailure(failure);
  return true;
}
