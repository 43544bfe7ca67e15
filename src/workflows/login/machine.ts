/**
 * The state machine of a login (the workflow `mcpLogin`, ./workflow.ts; its phases and state: ./state.ts): the
 * events that move it, and `transition`, the one function that says, for a state and an event, the next state and
 * what the workflow does about it (signal the waiting calls, withdraw or complete the login request, ask a person,
 * run an activity, reply). Pure: no workflow API, so it is unit-tested without a server
 * (test/workflows/login-machine.test.ts).
 *
 *   Idle ──want──▶ Authorizing ──token──▶ Idle (the waiting calls get the new generation)
 *                      │ ──failed──▶ Idle (the waiting calls fail)
 *                      └──redirect──▶ SigningIn ──declined / cancelled / expired──▶ Idle (the waiting calls fail)
 *                                         └──authorization response──▶ Exchanging ──token──▶ Idle
 *                                                                          └──rejected──▶ Idle, wanted again
 *   `logout` forgets the token, withdraws a pending sign-in and fails the waiting calls, in any phase.
 */
import { FailureTypes } from '../../contract/failures.js';
import type { RequestOutcome } from '../../contract/outcome.js';
import type { LoginSettled, OAuthCallbackInput, OAuthCallbackResult } from '../internal-messages.js';
import { acceptsCallback, isIdle, LoginPhase, type LoginState, type OpenSignIn, type TokenInfo, type Want } from './state.js';
import type { LoginWantedInput, LoginWantedResult, OAuthAuthorizeInput, OAuthAuthorizeOutcome, OAuthExchangeInput } from '../../contract/activities.js';

type Redirect = Extract<OAuthAuthorizeOutcome, { kind: 'redirect' }>;

/** How a login request ended without the authorization response. */
export type LoginRequestEnd = Exclude<RequestOutcome, 'accepted'>;

export type LoginEvent =
  /** A call asks for a newer token (the `loginWanted` update); `now` is workflow time. */
  | { type: 'wanted'; input: LoginWantedInput; now: number }
  /** The authorization response of the pending sign-in (the `oauthCallback` update, validated by `acceptsCallback`). */
  | { type: 'callback'; callback: OAuthCallbackInput }
  | { type: 'logout' }
  /** The login request was resolved without a sign-in (declined, cancelled or expired). */
  | { type: 'request-ended'; how: LoginRequestEnd }
  /** The workflow takes the want (Idle). */
  | { type: 'authorize'; now: number }
  /** The workflow takes the authorization response (Exchanging). */
  | { type: 'exchange' }
  /** The activity's outcomes: a token set; a sign-in to ask a person for; a refused code; a failure. */
  | { type: 'authorized'; sealed: string; info: TokenInfo }
  | { type: 'redirected'; redirect: Redirect }
  | { type: 'rejected'; sealed: string; reason: string }
  | { type: 'failed'; message: string };

export type LoginEffect =
  /** Signal `settled` to these waiting calls (the state has no waiters after it). */
  | { kind: 'settle'; waiters: readonly string[]; settled: Omit<LoginSettled, 'loginId'> }
  /** Resolve the login request `cancelled`. */
  | { kind: 'withdraw'; requestId: string }
  /** Resolve the login request as answered: the person signed in. */
  | { kind: 'signed-in'; requestId: string }
  /** Register a new login request (kind `authorization`) on the host, under a call of its own. */
  | { kind: 'ask'; requestId: string; callId: string; prompt: string; url: string; expiresInMs?: number; issuer?: string; scopes?: string };

export type LoginActivity = { name: 'oauthAuthorize'; input: OAuthAuthorizeInput } | { name: 'oauthExchange'; input: OAuthExchangeInput };

export interface Transition {
  state: LoginState;
  /** In this order. */
  effects: LoginEffect[];
  /** The activity to run next; its outcome is the next event. */
  activity?: LoginActivity;
  /** The reply to a `loginWanted` update. */
  wanted?: LoginWantedResult;
  /** The reply to the `oauthCallback` update (after the effects). */
  callback?: OAuthCallbackResult;
}

/** What the workflow does next, if anything (the loop waits until it is something). */
export type LoginStep = 'request-ended' | 'exchange' | 'authorize' | 'continue-as-new';

/** The next step: a pending sign-in was resolved, an authorization response arrived, a want waits, or the run is long and idle. */
export function nextStep(s: LoginState, isResolved: (requestId: string) => boolean, nearLimits: () => boolean): LoginStep | undefined {
  if (s.phase === LoginPhase.SigningIn && s.pending && isResolved(s.pending.requestId)) return 'request-ended';
  if (s.phase === LoginPhase.Exchanging) return 'exchange';
  if (s.phase === LoginPhase.Idle && s.want) return 'authorize';
  if (isIdle(s) && nearLimits()) return 'continue-as-new';
  return undefined;
}

/** The next state of `s` after `event`, and what the workflow does about it. */
export function transition(s: LoginState, event: LoginEvent): Transition {
  switch (event.type) {
    case 'wanted':
      return wanted(s, event.input, event.now);
    case 'callback':
      if (!acceptsCallback(s, event.callback)) return invalid(s, event);
      return { state: { ...s, phase: LoginPhase.Exchanging, exchanging: { callback: event.callback, signIn: s.pending! } }, effects: [] };
    case 'logout':
      return logout(s);
    case 'request-ended':
      return s.phase === LoginPhase.SigningIn ? loginRequestEnded(s, event.how) : invalid(s, event);
    case 'authorize':
      return s.phase === LoginPhase.Idle && s.want ? authorize(s, s.want, event.now) : invalid(s, event);
    case 'exchange':
      return s.exchanging ? exchange(s, s.exchanging.callback) : invalid(s, event);
    case 'authorized':
      if (s.phase === LoginPhase.Authorizing)
        return { state: { ...signedIn(s, event), authorizing: undefined }, effects: [settle(s, { generation: s.generation + 1 })] };
      return s.exchanging ? exchanged(s, s.exchanging.signIn, event) : invalid(s, event);
    case 'redirected':
      return s.phase === LoginPhase.Authorizing && s.authorizing ? askForLogin(s, s.authorizing, event.redirect) : invalid(s, event);
    case 'rejected':
      return s.exchanging ? askAgain(s, s.exchanging.signIn, event) : invalid(s, event);
    case 'failed':
      return failed(s, event);
  }
}

function invalid(s: LoginState, event: LoginEvent): never {
  throw new Error(`login ${s.loginId}: no transition for "${event.type}" in phase "${s.phase}"`);
}

function settle(s: LoginState, settled: Omit<LoginSettled, 'loginId'>): LoginEffect {
  return { kind: 'settle', waiters: s.waiters, settled };
}

function withdraw(s: LoginState): LoginEffect[] {
  return s.pending ? [{ kind: 'withdraw', requestId: s.pending.requestId }] : [];
}

function expired(info: TokenInfo | undefined, now: number): boolean {
  return info?.expiresAtMs !== undefined && info.expiresAtMs <= now;
}

function unionScopes(a: string | undefined, b: string | undefined): string | undefined {
  const all = new Set([...(a ?? '').split(/\s+/), ...(b ?? '').split(/\s+/)].filter(Boolean));
  return all.size > 0 ? [...all].join(' ') : undefined;
}

/** The want after `w` asked: the newest generation, step-up wins, the scopes of both, the latest metadata and expiry. */
function mergeWant(want: Want | undefined, w: LoginWantedInput): Want {
  const scope = unionScopes(want?.scope, w.scope);
  const resourceMetadataUrl = w.resourceMetadataUrl ?? want?.resourceMetadataUrl;
  const expiresInMs = w.expiresInMs ?? want?.expiresInMs;
  return {
    generation: Math.max(w.generation, want?.generation ?? 0),
    reason: w.reason === 'insufficient-scope' || want?.reason === 'insufficient-scope' ? 'insufficient-scope' : w.reason,
    ...(scope ? { scope } : {}),
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    ...(expiresInMs !== undefined ? { expiresInMs } : {}),
  };
}

function wanted(s: LoginState, w: LoginWantedInput, now: number): Transition {
  // Someone else's refresh or sign-in already replaced the token this call used: take that one.
  if (s.phase === LoginPhase.Idle && s.sealed && s.generation > w.generation && !expired(s.info, now)) {
    return { state: s, effects: [], wanted: { status: 'ready', generation: s.generation } };
  }
  const waiters = s.waiters.includes(w.waiter) ? s.waiters : [...s.waiters, w.waiter];
  // A want while a sign-in is pending is that sign-in's.
  return { state: { ...s, waiters, want: s.pending ? s.want : mergeWant(s.want, w) }, effects: [], wanted: { status: 'waiting' } };
}

function logout(s: LoginState): Transition {
  const message = `server "${s.server}": signed out (durable-mcp auth logout) while the call waited`;
  return {
    state: {
      ...s,
      phase: s.phase === LoginPhase.SigningIn ? LoginPhase.Idle : s.phase,
      sealed: undefined,
      info: undefined,
      pending: undefined,
      want: undefined,
      waiters: [],
    },
    effects: [...withdraw(s), settle(s, { failure: { type: FailureTypes.AuthorizationRequired, message } })],
  };
}

function loginRequestEnded(s: LoginState, how: LoginRequestEnd): Transition {
  const where = s.pending?.issuer ? ` at ${s.pending.issuer}` : '';
  const message = `server "${s.server}": the sign-in${where} for "${s.principal}" was ${how}`;
  return {
    state: { ...s, phase: LoginPhase.Idle, pending: undefined, waiters: [] },
    effects: [settle(s, { failure: { type: FailureTypes.AuthorizationRequired, message } })],
  };
}

function authorize(s: LoginState, w: Want, now: number): Transition {
  // The calls that asked while another refresh ran were told of its token already (settle): no second refresh.
  if (w.reason !== 'insufficient-scope' && s.sealed && s.info && s.generation > w.generation && !expired(s.info, now)) {
    return { state: { ...s, want: undefined }, effects: [] };
  }
  const input: OAuthAuthorizeInput = {
    loginId: s.loginId,
    server: s.server,
    principal: s.principal,
    ...(s.sealed ? { sealed: s.sealed } : {}),
    ...(w.scope ? { scope: w.scope } : {}),
    ...(w.reason === 'insufficient-scope' ? { forceReauthorization: true } : {}),
    ...(w.reason === 'rejected' ? { rediscover: true } : {}),
    ...(w.resourceMetadataUrl ? { resourceMetadataUrl: w.resourceMetadataUrl } : {}),
  };
  return { state: { ...s, phase: LoginPhase.Authorizing, want: undefined, authorizing: w }, effects: [], activity: { name: 'oauthAuthorize', input } };
}

/** A new token set (a refresh, or a sign-in's code exchanged): one generation more, the phase Idle, no waiters. */
function signedIn(s: LoginState, token: { sealed: string; info: TokenInfo }): LoginState {
  return { ...s, phase: LoginPhase.Idle, sealed: token.sealed, info: token.info, generation: s.generation + 1, waiters: [] };
}

function askForLogin(s: LoginState, w: Want, r: Redirect): Transition {
  const requests = s.requests + 1;
  const requestId = `login-${requests}`;
  const whose = s.principal === 'shared' ? '' : ` as "${s.principal}"`;
  const prompt =
    `Sign in to MCP server "${s.server}"${whose}` +
    `${r.issuer ? ` at ${r.issuer}` : ''}${r.scopes ? ` (scopes: ${r.scopes})` : ''}` +
    `${r.refreshRejected ? ': the saved sign-in was refused' : ''}`;
  const found = { ...(r.issuer ? { issuer: r.issuer } : {}), ...(r.scopes ? { scopes: r.scopes } : {}) };
  const ask: LoginEffect = {
    kind: 'ask',
    requestId,
    callId: `login-call-${requests}`,
    prompt,
    url: r.url,
    ...(w.expiresInMs !== undefined ? { expiresInMs: w.expiresInMs } : {}),
    ...found,
  };
  return {
    // The calls that asked meanwhile wait for this same sign-in.
    state: {
      ...s,
      phase: LoginPhase.SigningIn,
      sealed: r.sealed,
      info: undefined,
      requests,
      want: undefined,
      authorizing: undefined,
      pending: { requestId, state: r.state, ...found, want: w },
    },
    effects: [ask],
  };
}

function exchange(s: LoginState, cb: OAuthCallbackInput): Transition {
  if (cb.error !== undefined || cb.sealedCode === undefined) {
    const refused = `the authorization server refused the sign-in (${cb.error ?? 'no code'})`;
    return {
      state: { ...s, phase: LoginPhase.Idle, pending: undefined, exchanging: undefined, waiters: [] },
      effects: [...withdraw(s), settle(s, { failure: { type: FailureTypes.AuthorizationRequired, message: `server "${s.server}": ${refused}` } })],
      callback: { status: 'failed', message: refused },
    };
  }
  const input: OAuthExchangeInput = {
    loginId: s.loginId,
    server: s.server,
    principal: s.principal,
    sealed: s.sealed,
    sealedCode: cb.sealedCode,
    ...(cb.iss !== undefined ? { iss: cb.iss } : {}),
  };
  return { state: s, effects: [], activity: { name: 'oauthExchange', input } };
}

function exchanged(s: LoginState, signIn: OpenSignIn, token: { sealed: string; info: TokenInfo }): Transition {
  return {
    state: { ...signedIn(s, token), pending: undefined, exchanging: undefined },
    effects: [{ kind: 'signed-in', requestId: signIn.requestId }, settle(s, { generation: s.generation + 1 })],
    callback: { status: 'signed-in', message: `signed in to server "${s.server}"` },
  };
}

function askAgain(s: LoginState, signIn: OpenSignIn, r: { sealed: string; reason: string }): Transition {
  return {
    state: { ...s, phase: LoginPhase.Idle, sealed: r.sealed, pending: undefined, exchanging: undefined, want: signIn.want },
    effects: withdraw(s),
    callback: { status: 'asked-again', message: `${r.reason}: a new sign-in request is pending` },
  };
}

function failed(s: LoginState, event: Extract<LoginEvent, { type: 'failed' }>): Transition {
  const failure = { type: FailureTypes.AuthorizationFailed, message: event.message };
  if (s.phase === LoginPhase.Authorizing)
    return { state: { ...s, phase: LoginPhase.Idle, authorizing: undefined, waiters: [] }, effects: [settle(s, { failure })] };
  if (!s.exchanging) return invalid(s, event);
  return {
    state: { ...s, phase: LoginPhase.Idle, pending: undefined, exchanging: undefined, waiters: [] },
    effects: [...withdraw(s), settle(s, { failure })],
    callback: { status: 'failed', message: event.message },
  };
}
