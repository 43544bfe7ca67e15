/**
 * The login of a server behind OAuth (MCP authorization; docs/oauth.md), as every plane names it: the id of its workflow
 * (one per credential set: server and principal; credentials inside are keyed by the authorization server's issuer)
 * and the `state` parameter that binds an authorization response to that workflow. Pure: workflow code imports it.
 */

/** The principal of a server's login when the config says `principal: "shared"` (the default). */
export const SHARED_PRINCIPAL = 'shared';
/** Prefix of every login workflow's id. */
export const LOGIN_WORKFLOW_PREFIX = 'durable-mcp-login:';

/** The workflow id of the login of `server` for `principal` (fixed: concurrent calls attach to the same one). */
export function loginWorkflowId(server: string, principal: string = SHARED_PRINCIPAL): string {
  return principal === SHARED_PRINCIPAL ? `${LOGIN_WORKFLOW_PREFIX}${server}` : `${LOGIN_WORKFLOW_PREFIX}${server}:principal:${principal}`;
}

/** Why a call needs its login: no token yet, it expired, the server refused it (401), or it lacks a scope (403). */
export type LoginReason = 'no-token' | 'expired' | 'rejected' | 'insufficient-scope';

/**
 * The login a call wants: a server behind OAuth needs a (new) access token. The one shape of it, in both planes: the
 * `login` of an activity's `login_required` outcome (with the login's id) and the body of the login's `loginWanted`
 * update (with the waiting workflow). Recorded in histories (an activity's result, an update's input): it never changes.
 */
export interface LoginWanted {
  server: string;
  principal: string;
  /** The generation of the token the call used (0: it had none). */
  generation: number;
  reason: LoginReason;
  /** The scope the server's challenge asked for (a step-up: that and what was granted). */
  scope?: string;
  /** The protected-resource metadata URL the server's challenge named. */
  resourceMetadataUrl?: string;
}

/** Longest principal name (it is part of a workflow id). */
export const MAX_PRINCIPAL_LENGTH = 200;

/** Why a principal name is refused (undefined: it is a fine one). */
export function principalProblem(principal: unknown): string | undefined {
  if (typeof principal !== 'string' || principal.length === 0) return 'must be a non-empty string';
  if (principal.length > MAX_PRINCIPAL_LENGTH) return `is ${principal.length} characters long, over ${MAX_PRINCIPAL_LENGTH}`;
  for (const ch of principal) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return 'must not contain control characters';
  }
  return undefined;
}

/**
 * The `state` of an authorization request: the login workflow's id (so the callback knows where to go) and a random
 * part (bound to that login, single use). base64url, `.`-separated.
 */
export function loginIdOfState(state: string): string | undefined {
  const dot = state.indexOf('.');
  if (dot <= 0 || dot !== state.lastIndexOf('.')) return undefined;
  const head = state.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(head) || !/^[A-Za-z0-9_-]{32,}$/.test(state.slice(dot + 1))) return undefined;
  let id: string;
  try {
    id = decodeBase64Url(head);
  } catch {
    return undefined;
  }
  return id.startsWith(LOGIN_WORKFLOW_PREFIX) ? id : undefined;
}

function decodeBase64Url(s: string): string {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** What `loginStatus` says of a login: nothing secret (no token, code, verifier or client secret). */
export interface LoginStatus {
  server: string;
  principal: string;
  /** `signed-in`: it has an access token; `pending`: a person is asked to sign in; `signed-out`: neither. */
  state: 'signed-in' | 'pending' | 'signed-out';
  issuer?: string;
  scopes?: string;
  /** RFC 3339: when the access token expires (when the server said). */
  expiresAt?: string;
  /** The token set's generation: 1 for the first, one more for each refresh or new sign-in. */
  generation: number;
  refreshable: boolean;
  /** The pending login request, if one is pending. */
  requestId?: string;
  /** Calls waiting for the login. */
  waiting: number;
}

/** What a login's workflow may know of its token set: nothing secret. */
export interface TokenInfo {
  issuer?: string;
  scopes?: string;
  /** When the access token expires (ms since the epoch), when the server said. */
  expiresAtMs?: number;
  refreshable: boolean;
}
