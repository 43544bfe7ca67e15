/**
 * The state of a login (the workflow `mcpLogin`): its phase, its token, its waiters, its want and its pending sign-in,
 * and what its queries and continue-as-new read of it. Its transitions are ./machine.ts. Pure: no workflow API.
 */
import type { LoginStatus } from '../../contract/login.js';
import type { OAuthCallbackInput } from '../internal-messages.js';
import type { LoginWantedInput, OAuthAuthorizeOutcome } from '../../contract/activities.js';

export type TokenInfo = Extract<OAuthAuthorizeOutcome, { kind: 'authorized' }>['info'];

export enum LoginPhase {
  /** No activity runs and no sign-in is pending: a want starts `oauthAuthorize`. */
  Idle = 'idle',
  /** `oauthAuthorize` runs (a refresh, or the start of a sign-in). */
  Authorizing = 'authorizing',
  /** A person is asked to sign in: the `authorization` request is pending on the host. */
  SigningIn = 'signing-in',
  /** The authorization response of the pending sign-in arrived: `oauthExchange` turns its code into tokens. */
  Exchanging = 'exchanging',
}

export interface Want {
  reason: LoginWantedInput['reason'];
  /** The newest token generation a call reported refused or expired: a token newer than it answers the want. */
  generation: number;
  scope?: string;
  resourceMetadataUrl?: string;
  expiresInMs?: number;
}

/** The sign-in the login has open (a person was asked to follow its link): its request, state, issuer and want. */
export interface OpenSignIn {
  requestId: string;
  state: string;
  issuer?: string;
  scopes?: string;
  /** The last want, to ask again with when the code is refused. */
  want: Want;
}

/** What a login carries across continue-as-new. */
export interface LoginSnapshot {
  sealed?: string;
  generation: number;
  info?: TokenInfo;
  requests: number;
  waiters: string[];
}

export interface LoginState {
  readonly server: string;
  readonly principal: string;
  readonly loginId: string;
  readonly phase: LoginPhase;
  /** The login's secrets (token set, refresh token, client registration, PKCE verifier), sealed by an activity. */
  readonly sealed: string | undefined;
  /** 1 for the first token set, one more for each refresh or new sign-in. */
  readonly generation: number;
  readonly info: TokenInfo | undefined;
  /** Login requests asked so far (the next is `login-<requests + 1>`). */
  readonly requests: number;
  /** The workflows of the calls waiting for the login to settle, in the order they asked. */
  readonly waiters: readonly string[];
  /** What the calls want next (outside a sign-in: the calls that ask during one wait for it). */
  readonly want: Want | undefined;
  readonly pending: OpenSignIn | undefined;
  /** Authorizing: the want `oauthAuthorize` answers. */
  readonly authorizing: Want | undefined;
  /** Exchanging: the authorization response, and the sign-in it answers. */
  readonly exchanging: { callback: OAuthCallbackInput; signIn: OpenSignIn } | undefined;
}

export function initialState(server: string, principal: string, loginId: string, continued?: LoginSnapshot): LoginState {
  return {
    server,
    principal,
    loginId,
    phase: LoginPhase.Idle,
    sealed: continued?.sealed,
    generation: continued?.generation ?? 0,
    info: continued?.info,
    requests: continued?.requests ?? 0,
    waiters: [...new Set(continued?.waiters ?? [])],
    want: undefined,
    pending: undefined,
    authorizing: undefined,
    exchanging: undefined,
  };
}

export function snapshotOf(s: LoginState): LoginSnapshot {
  return {
    ...(s.sealed ? { sealed: s.sealed } : {}),
    generation: s.generation,
    ...(s.info ? { info: s.info } : {}),
    requests: s.requests,
    waiters: [...s.waiters],
  };
}

/** Nothing runs, nothing is pending, nothing is wanted: the login may continue as new. */
export function isIdle(s: LoginState): boolean {
  return s.phase === LoginPhase.Idle && !s.want;
}

/** The authorization response is for the pending sign-in, and the first one for it (its state is spent after). */
export function acceptsCallback(s: LoginState, cb: OAuthCallbackInput): boolean {
  return !!cb && typeof cb.state === 'string' && s.phase === LoginPhase.SigningIn && !!s.pending && cb.state === s.pending.state;
}

export function statusOf(s: LoginState): LoginStatus {
  const { info, pending } = s;
  return {
    server: s.server,
    principal: s.principal,
    state: pending ? 'pending' : s.sealed && s.generation > 0 && info ? 'signed-in' : 'signed-out',
    ...(info?.issuer ? { issuer: info.issuer } : pending?.issuer ? { issuer: pending.issuer } : {}),
    ...(info?.scopes ? { scopes: info.scopes } : pending?.scopes ? { scopes: pending.scopes } : {}),
    ...(info?.expiresAtMs !== undefined ? { expiresAt: new Date(info.expiresAtMs).toISOString() } : {}),
    generation: s.generation,
    refreshable: info?.refreshable === true,
    ...(pending ? { requestId: pending.requestId } : {}),
    waiting: s.waiters.length,
  };
}

export function credentialsOf(s: LoginState) {
  return {
    generation: s.generation,
    ...(s.sealed ? { sealed: s.sealed } : {}),
    ...(s.info?.expiresAtMs !== undefined ? { expiresAtMs: s.info.expiresAtMs } : {}),
  };
}
