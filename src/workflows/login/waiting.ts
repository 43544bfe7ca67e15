/**
 * A call's side of a login (servers behind OAuth): the `loginSettled` signals this workflow receives, counted per
 * login, so a call that asked a login (`requestLogin`) waits until it settles after the ask, then runs again or fails
 * with the login's failure. Installed once per workflow on first use; a handler adds no command, so histories recorded
 * before it replay unchanged. Deterministic: workflow APIs only.
 */
import { setHandler } from '@temporalio/workflow';
import { loginSettledSignal, type LoginSettled } from '../messages.js';

/** Calls of one `executeMcpTool` that may end `login_required` in a row before the call fails (the server keeps refusing new tokens). */
export const MAX_LOGIN_ROUNDS = 5;

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
