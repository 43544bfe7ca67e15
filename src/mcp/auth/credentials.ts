/**
 * A worker's side of the logins: the access tokens its calls use (read from the login workflow, cached until they
 * expire) and the `AuthProvider` its HTTP transports send them with. When a server refuses a token (401), or a call
 * has none, the call does not sign in itself: an McpSourceError `AuthorizationRequired` ends its activity, and its workflow asks the login
 * workflow for a new token (a refresh, or a person signing in), then runs the call again.
 */
import { extractWWWAuthenticateParams, InsufficientScopeError, type AuthProvider } from '@modelcontextprotocol/client';
import type { LoginReason } from '../../contract/login.js';
import { isMcpSourceError, McpSourceError, McpSourceErrorCodes, type LoginChallenge } from '../errors.js';

export type { LoginReason };

type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/** An access token a worker holds (never in a workflow's state in plaintext, never logged). */
export interface AccessToken {
  accessToken: string;
  tokenType?: string;
  /** The login's token generation this token belongs to. */
  generation: number;
  /** When it expires (ms since the epoch), if the server said. */
  expiresAtMs?: number;
  scopes?: string;
}

/** A sign-in a call needs: the MCP plane's error `AuthorizationRequired`, with why, the token refused and the challenge. */
export type LoginRequired = McpSourceError & {
  code: typeof McpSourceErrorCodes.AuthorizationRequired;
  server: string;
  reason: LoginReason;
  /** The generation of the token the server refused (0: none was sent). */
  generation: number;
  challenge: LoginChallenge;
};

export function loginRequired(server: string, reason: LoginReason, generation: number, challenge: LoginChallenge = {}): LoginRequired {
  return new McpSourceError(McpSourceErrorCodes.AuthorizationRequired, `server "${server}" needs authorization (${reason})`, {
    server,
    reason,
    generation,
    challenge,
  }) as LoginRequired;
}

/** Whether `err` is a sign-in a call needs. */
export function isLoginRequired(err: unknown): err is LoginRequired {
  return isMcpSourceError(err, McpSourceErrorCodes.AuthorizationRequired);
}

/** Seconds before its expiry at which a cached token is no longer used (clocks differ, requests take time). */
export const EXPIRY_SKEW_MS = 30_000;

/** The worker's cache of access tokens, by login workflow id. */
export class TokenCache {
  private readonly tokens = new Map<string, AccessToken>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A usable token of the login (undefined: none, or it expires within the skew). */
  get(loginId: string): AccessToken | undefined {
    const t = this.tokens.get(loginId);
    if (!t) return undefined;
    if (t.expiresAtMs !== undefined && t.expiresAtMs - EXPIRY_SKEW_MS <= this.now()) return undefined;
    return t;
  }

  /** The latest token of the login even when expired (its generation says what the login must replace). */
  latest(loginId: string): AccessToken | undefined {
    return this.tokens.get(loginId);
  }

  set(loginId: string, token: AccessToken): void {
    const known = this.tokens.get(loginId);
    if (!known || token.generation >= known.generation) this.tokens.set(loginId, token);
  }

  /** Forget the token of a generation the server refused (a newer one stays). */
  drop(loginId: string, generation?: number): void {
    const known = this.tokens.get(loginId);
    if (known && (generation === undefined || known.generation <= generation)) this.tokens.delete(loginId);
  }

  expired(token: AccessToken): boolean {
    return token.expiresAtMs !== undefined && token.expiresAtMs - EXPIRY_SKEW_MS <= this.now();
  }
}

/**
 * The bearer token a session sends and what a 401 means for it: the transport reads `token()` before every request
 * (a pooled session thus picks up a new token), and on a 401 `onUnauthorized` ends the call with an McpSourceError `AuthorizationRequired`.
 */
export function loginAuthProvider(server: string, current: () => AccessToken | undefined): AuthProvider {
  let sent = 0;
  return {
    token: async () => {
      const t = current();
      sent = t?.generation ?? 0;
      return t?.accessToken;
    },
    onUnauthorized: async (ctx: UnauthorizedContext) => {
      const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(ctx.response);
      throw loginRequired(server, sent === 0 ? 'no-token' : 'rejected', sent, {
        ...(scope ? { scope } : {}),
        ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
      });
    },
  };
}

/** The login an error asks for, if it is one (a 401 through `onUnauthorized`, or a 403 `insufficient_scope`). */
export function loginRequiredOf(err: unknown, server: string, generation: number): LoginRequired | undefined {
  for (let e: unknown = err, i = 0; e && i < 8; e = (e as { cause?: unknown }).cause, i++) {
    if (isLoginRequired(e)) return e;
    if (e instanceof InsufficientScopeError) {
      return loginRequired(server, 'insufficient-scope', generation, {
        ...(e.requiredScope ? { scope: e.requiredScope } : {}),
        ...(e.resourceMetadataUrl ? { resourceMetadataUrl: e.resourceMetadataUrl.href } : {}),
      });
    }
  }
  return undefined;
}
