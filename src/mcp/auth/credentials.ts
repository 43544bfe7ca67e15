/**
 * A worker's side of the logins: the access tokens its calls use (read from the login workflow, cached until they
 * expire) and the `AuthProvider` its HTTP transports send them with. When a server refuses a token (401), or a call
 * has none, the call does not sign in itself: `LoginRequiredError` ends its activity, and its workflow asks the login
 * workflow for a new token (a refresh, or a person signing in), then runs the call again.
 */
import { extractWWWAuthenticateParams, InsufficientScopeError, type AuthProvider } from '@modelcontextprotocol/client';
import type { LoginReason } from '../../contract/login.js';

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

export class LoginRequiredError extends Error {
  override name = 'LoginRequiredError';
  constructor(
    readonly server: string,
    readonly reason: LoginReason,
    /** The generation of the token the server refused (0: none was sent). */
    readonly generation: number,
    readonly challenge: { scope?: string; resourceMetadataUrl?: string } = {},
  ) {
    super(`server "${server}" needs authorization (${reason})`);
  }
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
 * (a pooled session thus picks up a new token), and on a 401 `onUnauthorized` ends the call with `LoginRequiredError`.
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
      throw new LoginRequiredError(server, sent === 0 ? 'no-token' : 'rejected', sent, {
        ...(scope ? { scope } : {}),
        ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
      });
    },
  };
}

/** The login an error asks for, if it is one (a 401 through `onUnauthorized`, or a 403 `insufficient_scope`). */
export function loginRequiredOf(err: unknown, server: string, generation: number): LoginRequiredError | undefined {
  for (let e: unknown = err, i = 0; e && i < 8; e = (e as { cause?: unknown }).cause, i++) {
    if (e instanceof LoginRequiredError) return e;
    if (e instanceof InsufficientScopeError) {
      return new LoginRequiredError(server, 'insufficient-scope', generation, {
        ...(e.requiredScope ? { scope: e.requiredScope } : {}),
        ...(e.resourceMetadataUrl ? { resourceMetadataUrl: e.resourceMetadataUrl.href } : {}),
      });
    }
  }
  return undefined;
}
