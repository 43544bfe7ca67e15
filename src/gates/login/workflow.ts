/**
 * A call's side of a login (servers behind OAuth): the `loginSettled` signals this workflow receives, counted per
 * login, so a call that asked a login (`requestLogin`) waits until it settles after the ask, then runs again or fails
 * with the login's failure. Installed once per workflow on first use; a handler adds no command, so histories recorded
 * before it replay unchanged. Deterministic: workflow APIs only.
 */
import { ApplicationFailure, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import { loginSettledSignal, type LoginSettled } from '../../workflows/internal-messages.js';
import type { CallMcpToolLoginRequired, RequestLoginInput } from '../../contract/activities.js';
import type { DurableMcpActivities } from '../../contract/activities.js';
import { run, type GateWait, type Step } from '../step.js';

/**
 * Attempts of one `executeMcpTool` (or one `mcpListTools`) that may end `login_required` in a row before it fails (the
 * server keeps refusing new tokens).
 */
export const MAX_LOGIN_ROUNDS = 5;

/** A call (or a listing) asks its server's login for a token (a short update-with-start; the wait for the login is the workflow's). */
export const { requestLogin } = proxyActivities<DurableMcpActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20 },
});

/**
 * What a call (or a listing) whose activity ended `login_required` asks of `requestLogin`: the login it wants, this
 * workflow as the one to signal once the login settles, how long a sign-in waits for a person, and the worker's flags.
 * Synchronous: the `await`s of the ask and of the wait stay in each caller's loop (the recorded histories replay so).
 */
export function loginRequestOf(outcome: CallMcpToolLoginRequired, expiresInMs: number): RequestLoginInput {
  return {
    ...outcome.login,
    waiter: workflowInfo().workflowId,
    expiresInMs,
    ...(outcome.searchAttribute ? { searchAttribute: true } : {}),
    ...(outcome.notify ? { notify: true } : {}),
  };
}

/** The failure after MAX_LOGIN_ROUNDS logins in a row that did not do (`reason`: why the last token was wanted). */
export function tooManyLogins(server: string, reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `server "${server}" refused ${MAX_LOGIN_ROUNDS} new access tokens in a row (${reason})`,
    FailureTypes.AuthorizationFailed,
  );
}

/** The login's own failure (expired, declined, signed out: `AuthorizationRequired`; `AuthorizationFailed`), as the waiting call fails with it. */
export function loginFailure(failure: NonNullable<LoginSettled['failure']>): ApplicationFailure {
  return ApplicationFailure.nonRetryable(failure.message, failure.type);
}

export class LoginWaits {
  private readonly settled = new Map<string, { count: number; last: LoginSettled }>();

  constructor() {
    setHandler(loginSettledSignal, (s: LoginSettled) => {
      if (!s || typeof s.loginId !== 'string') return;
      const known = this.settled.get(s.loginId);
      this.settled.set(s.loginId, { count: (known?.count ?? 0) + 1, last: s });
    });
  }

  /** How many times the login settled so far (a call notes it before it asks). */
  count(loginId: string): number {
    return this.settled.get(loginId)?.count ?? 0;
  }

  last(loginId: string): LoginSettled | undefined {
    return this.settled.get(loginId)?.last;
  }
}

let waits: LoginWaits | undefined;

/** The workflow's login waits, installed on first use. */
export function useLoginWaits(): LoginWaits {
  if (!waits) waits = new LoginWaits();
  return waits;
}

/**
 * The login gate's wait: ask the server's login (one per server and principal), wait for it to settle (a refresh, or a
 * person signing in: nothing is held meanwhile), then run the call again.
 */
export const loginWait: GateWait<'login'> = (ctx, outcome) => {
  if (++ctx.state.logins > MAX_LOGIN_ROUNDS) throw tooManyLogins(ctx.input.server, outcome.login.reason);
  const waits = useLoginWaits();
  const { loginId } = outcome.login;
  const seen = waits.count(loginId);
  const settled = (): Step => {
    const failure = waits.last(loginId)?.failure;
    if (failure) throw loginFailure(failure);
    return { again: {} };
  };
  return run(
    () => requestLogin(loginRequestOf(outcome, ctx.call.expiresInMs)),
    (asked): Step => (asked.status === 'waiting' ? { until: () => waits.count(loginId) > seen, then: settled } : { again: {} }),
  );
};
