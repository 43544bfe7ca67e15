/**
 * The workflow `mcpLogin`: the login of one server behind OAuth for one principal (docs/oauth.md), with a
 * fixed id (contract/login.ts), started by the first call that needs it (update-with-start of `loginWanted`), so any
 * number of calls waiting for one server make one login. It is the credential store: the token set, the refresh
 * token, the client registration and the PKCE verifier, sealed by an activity (src/mcp/auth/seal.ts) and held here
 * as an opaque string, inside payloads the codec encrypts. It runs one activity at a time (a rotating refresh token is
 * used once however many calls on however many workers find the token expired), and a sign-in is one `authorization`
 * Request on its elicitation host: pending, listed, notified and expiring like any other.
 *
 * Its state machine: ./state.ts (phases, state) and ./machine.ts (events, transitions); here are the messages it answers, the one `Login`
 * object their handlers are set onto, and what each transition's effects do (signals, the host, activities).
 * Deterministic: workflow APIs and the contract only.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import type { Answer } from '../../contract/index.js';
import { loginWorkflowId, type LoginStatus } from '../../contract/login.js';
import { DEFAULT_EXPIRES_IN_MS } from '../host/index.js';
import { useElicitationHost } from '../host/install.js';
import { continueAsNewWhenIdle } from '../idle.js';
import { requestOutcomeOf } from '../../contract/outcome.js';
import { loginStatusQuery, logoutUpdate } from '../messages.js';
import {
  loginCredentialsQuery,
  loginSettledSignal,
  loginWantedUpdate,
  oauthCallbackUpdate,
  type OAuthCallbackInput,
  type OAuthCallbackResult,
} from '../internal-messages.js';
import { nextStep, transition, type LoginActivity, type LoginEffect, type LoginEvent, type LoginStep } from './machine.js';
import { acceptsCallback, credentialsOf, initialState, isIdle, snapshotOf, statusOf, type LoginSnapshot, type LoginState } from './state.js';
import type { LoginWantedInput, LoginWantedResult } from '../../contract/activities.js';
import type { DurableMcpActivities } from '../../contract/activities.js';

/** Continue as new, while idle, past this many history events (a login lives as long as its server is used). */
export const LOGIN_MAX_HISTORY_EVENTS = 2_000;
/** The tool name a login request is listed under (it belongs to no tool call). */
export const SIGN_IN_TOOL = '(sign-in)';

export interface McpLoginInput {
  server: string;
  principal: string;
  /** @internal carried across continue-as-new */
  continued?: LoginSnapshot;
}

type Host = ReturnType<typeof useElicitationHost>;

const { oauthAuthorize, oauthExchange } = proxyActivities<DurableMcpActivities>({
  startToCloseTimeout: '60s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [FailureTypes.AuthorizationFailed],
  },
});

/** What an activity's failure says (its cause's message: the ActivityFailure's own is "Activity task failed"). */
function failureMessage(err: unknown): string {
  const e = err as Error;
  return e.cause instanceof Error ? e.cause.message : e.message;
}

/** Runs a login's activity; its outcome (or its failure, with the activity's reason) is the machine's next event. */
async function run(activity: LoginActivity): Promise<LoginEvent> {
  try {
    if (activity.name === 'oauthExchange') {
      const r = await oauthExchange(activity.input);
      return r.kind === 'authorized' ? { type: 'authorized', sealed: r.sealed, info: r.info } : { type: 'rejected', sealed: r.sealed, reason: r.reason };
    }
    const r = await oauthAuthorize(activity.input);
    return r.kind === 'authorized' ? { type: 'authorized', sealed: r.sealed, info: r.info } : { type: 'redirected', redirect: r };
  } catch (err) {
    // The activity's reason (an iss mismatch, say), not "Activity task failed".
    return { type: 'failed', message: failureMessage(err) };
  }
}

/** The login's one state object: the machine's state, the handlers of its messages, and the effects of its transitions. */
class Login {
  state: LoginState;
  /** The reply to the authorization response being handled (its `oauthCallback` update waits for it). */
  private callbackResult: OAuthCallbackResult | undefined;

  constructor(
    input: McpLoginInput,
    readonly host: Host,
  ) {
    this.state = initialState(input.server, input.principal, loginWorkflowId(input.server, input.principal), input.continued);
  }

  /** Moves the machine and does the transition's effects, in order; returns the transition. */
  private apply(event: LoginEvent) {
    const t = transition(this.state, event);
    this.state = t.state;
    for (const effect of t.effects) this.perform(effect);
    if (t.callback) this.callbackResult = t.callback;
    return t;
  }

  private perform(effect: LoginEffect): void {
    const { host } = this;
    const { server, principal, loginId } = this.state;
    switch (effect.kind) {
      case 'settle':
        for (const waiter of effect.waiters) {
          getExternalWorkflowHandle(waiter)
            .signal(loginSettledSignal, { loginId, ...effect.settled })
            .catch((err) => log.warn('could not tell a waiting call that the login settled', { waiter, error: String(err) }));
        }
        return;
      case 'withdraw':
        host.resolve({ id: effect.requestId, ok: false, reason: 'cancelled' });
        return;
      case 'signed-in':
        host.resolve({ id: effect.requestId, ok: true }, { answered: true });
        return;
      case 'ask': {
        const who = { principal, ...(effect.issuer ? { issuer: effect.issuer } : {}), ...(effect.scopes ? { scopes: effect.scopes } : {}) };
        const call = host.requests.newCall(
          { server, tool: SIGN_IN_TOOL, expiresInMs: effect.expiresInMs ?? DEFAULT_EXPIRES_IN_MS, holdForMs: 0, login: who },
          effect.callId,
        );
        host.register({ id: effect.requestId, kind: 'authorization', prompt: effect.prompt, url: effect.url }, call.callId);
        return;
      }
    }
  }

  /** Handler of `loginWanted`: a call asks for a newer token than the one it has. */
  readonly wanted = (w: LoginWantedInput): LoginWantedResult => {
    this.host.useWorkerFeatures(w);
    return this.apply({ type: 'wanted', input: w, now: Date.now() }).wanted!;
  };

  readonly validateWanted = (w: LoginWantedInput): void => {
    const { server, principal } = this.state;
    if (!w || typeof w.waiter !== 'string' || typeof w.generation !== 'number') throw new Error('loginWanted: input must be { waiter, generation, reason }');
    if (w.server !== server || w.principal !== principal) throw new Error(`loginWanted: this is the login of server "${server}" for "${principal}"`);
  };

  /** Handler of `oauthCallback`: the authorization response of the pending sign-in; replies once the loop has handled it. */
  readonly callback = async (cb: OAuthCallbackInput): Promise<OAuthCallbackResult> => {
    this.apply({ type: 'callback', callback: cb });
    this.callbackResult = undefined;
    await condition(() => this.callbackResult !== undefined);
    return this.callbackResult!;
  };

  /** An unknown, spent or replayed state is refused here: a refused update leaves no trace in history. */
  readonly validateCallback = (cb: OAuthCallbackInput): void => {
    if (!acceptsCallback(this.state, cb)) throw ApplicationFailure.nonRetryable('this sign-in link is unknown or was already used', FailureTypes.UnknownState);
  };

  readonly logout = (): LoginStatus => {
    this.apply({ type: 'logout' });
    return this.status();
  };

  readonly status = (): LoginStatus => statusOf(this.state);
  readonly credentials = () => credentialsOf(this.state);

  /** A person's "done" is no sign-in: the authorization server's redirect to the inbox's /oauth/callback is. */
  readonly answerGuard = (raw: unknown) => {
    const a = raw as Answer;
    const pending = this.state.pending;
    if (!pending || a.id !== pending.requestId || a.ok !== true) return undefined;
    return {
      ok: false as const,
      type: 'InvalidAnswer' as const,
      reason:
        `request "${a.id}" is a sign-in: it completes when the authorization server sends the browser back to the inbox's /oauth/callback` +
        ' (open the link and sign in); decline or cancel it to stop the calls that wait',
    };
  };

  nextStep(): LoginStep | undefined {
    const nearLimits = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= LOGIN_MAX_HISTORY_EVENTS;
    return nextStep(this.state, (id) => this.host.requests.isResolved(id), nearLimits);
  }

  /** Takes a step other than continue-as-new: an event of the loop, then the activity it asks for, if any. */
  async take(step: Exclude<LoginStep, 'continue-as-new'>): Promise<void> {
    if (step === 'request-ended') {
      // Declined, cancelled or expired: the calls waiting for it fail.
      // A request accepted without the authorization response (no callback came) ends as cancelled, as any other.
      const answer = this.host.requests.answerFor(this.state.pending!.requestId);
      const outcome = answer ? requestOutcomeOf(answer) : 'cancelled';
      this.apply({ type: 'request-ended', how: outcome === 'accepted' ? 'cancelled' : outcome });
      return;
    }
    const t = this.apply(step === 'exchange' ? { type: 'exchange' } : { type: 'authorize', now: Date.now() });
    if (t.activity) this.apply(await run(t.activity));
  }
}

/** The workflow `mcpLogin`: the login of one server behind OAuth for one principal, started by the calls that need it (docs/oauth.md). */
export async function mcpLogin(input: McpLoginInput): Promise<void> {
  const login = new Login(input, useElicitationHost());
  login.host.answerGuard = login.answerGuard;
  setHandler(loginWantedUpdate, login.wanted, { validator: login.validateWanted });
  setHandler(loginCredentialsQuery, login.credentials);
  setHandler(loginStatusQuery, login.status);
  setHandler(oauthCallbackUpdate, login.callback, { validator: login.validateCallback });
  setHandler(logoutUpdate, login.logout);
  for (;;) {
    // Each wake-up is one step, so the loop never spins.
    await condition(() => login.nextStep() !== undefined);
    const step = login.nextStep()!;
    if (step === 'continue-as-new') {
      // Once idle (else the loop goes on): the next run carries the login's state.
      await continueAsNewWhenIdle<typeof mcpLogin>(login.host, () =>
        isIdle(login.state) ? { server: input.server, principal: input.principal, continued: snapshotOf(login.state) } : undefined,
      );
    } else await login.take(step);
  }
}
