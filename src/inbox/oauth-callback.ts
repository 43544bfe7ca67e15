/**
 * The inbox's `/oauth/callback` (servers behind OAuth; docs/oauth.md): where an authorization server sends
 * the browser back after a person signed in. It takes only what a browser sends back (a GET navigation with `code`,
 * `state`, `iss`, or `error`). Before it touches Temporal it refuses, at no cost to any workflow: a client over its rate
 * (429), a state this deployment did not sign (the worker's MAC, src/codec/state-mac.ts), an expired one, and one this
 * inbox already handed on (a replay). Only then does it seal the code (it never reaches history in plaintext) and hand
 * it to the login workflow, whose `oauthCallback` update checks that the state is that login's pending one.
 * No inbox token is asked for (the browser comes from the authorization server's site, without the inbox's cookie):
 * the signed state is what authorizes the request. The page shows a fixed sentence and a code from a fixed list,
 * never what the authorization server (or the login) sent.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { resendUnprocessed } from '../client/workers.js';
import { clientAddress, RateLimiter, type RateOptions } from '../codec/limits.js';
import { StateMac, STATE_KEYS_ENV } from '../codec/state-mac.js';
import { OAUTH_CALLBACK_PATH } from '../contract/client-metadata.js';
import { loginIdOfState } from '../contract/login.js';
import { OAUTH_CALLBACK_UPDATE } from '../contract/message-names.js';
import type { OAuthCallbackInput, OAuthCallbackResult } from '../workflows/internal-messages.js';

export { OAUTH_CALLBACK_PATH };

/** Seals an authorization code for the login workflow (the worker's seal; the CLI passes it). */
export type CodeSealer = (code: string) => string;

const MAX_PARAM_LENGTH = 4096;
/** The callback's default rate per client address: 10 at once, then one every 2 seconds. */
export const DEFAULT_CALLBACK_RATE: RateOptions = { burst: 10, perSecond: 0.5, maxClients: 10_000 };
/** States remembered as used (the oldest is forgotten first; a state past its expiry is refused anyway). */
const MAX_USED_STATES = 10_000;

/** The authorization server's error codes the page may name (RFC 6749 §4.1.2.1); any other is `other_error`. */
const AS_ERRORS = new Set([
  'access_denied',
  'invalid_request',
  'unauthorized_client',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'login_required',
  'consent_required',
  'interaction_required',
]);

/** Every page the callback can show: its status, title and fixed sentence, by code. */
const OUTCOMES = {
  signed_in: [200, 'Signed in', 'The calls that waited go on; you can close this page.'],
  asked_again: [409, 'Sign in again', 'The authorization server did not take this sign-in: a new sign-in request is pending in the inbox.'],
  sign_in_failed: [400, 'Sign-in failed', 'The sign-in did not complete: the calls that waited were told, and the inbox shows what to do next.'],
  refused_by_server: [400, 'Sign-in refused', 'The authorization server refused the sign-in: the calls that waited were told.'],
  unknown_state: [400, 'Unknown sign-in', 'This sign-in link is unknown or was already used. Nothing was changed.'],
  expired_state: [400, 'Sign-in link expired', 'This sign-in link has expired. Nothing was changed; open the sign-in request in the inbox again.'],
  not_a_sign_in: [400, 'Not a sign-in', 'The sign-in callback takes only a browser’s return from an authorization server.'],
  wrong_method: [405, 'Not a sign-in', 'The sign-in callback takes only the browser’s return from the authorization server.'],
  too_many: [429, 'Too many sign-ins', 'Too many sign-in attempts came from this address. Wait a minute and try the link again.'],
  no_key: [500, 'Sign-in not taken', 'This inbox has no key to check or seal sign-ins with (see “Encryption” in the docs). Nothing was changed.'],
  not_delivered: [502, 'Sign-in not delivered', 'The sign-in could not be handed to its login workflow (is a worker running?). Try the link again.'],
} as const satisfies Record<string, readonly [200 | 400 | 405 | 409 | 429 | 500 | 502, string, string]>;
export type CallbackCode = keyof typeof OUTCOMES;

function page(c: Context, code: CallbackCode, asError?: string) {
  const [status, title, text] = OUTCOMES[code];
  if (status === 429) c.header('Retry-After', '60');
  return c.html(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>${title}</title>
          <link rel="stylesheet" href="/static/inbox.css" />
        </head>
        <body>
          <main class="oauth-callback">
            <h1>${title}</h1>
            <p>${text}</p>
            <p class="code">Code: <code>${asError ?? code}</code></p>
          </main>
        </body>
      </html>`,
    status,
  );
}

/** States this inbox has handed on, until they expire (bounded: the oldest is forgotten first). */
class UsedStates {
  private readonly until = new Map<string, number>();
  has(state: string, now: number): boolean {
    const t = this.until.get(state);
    if (t !== undefined && t <= now) this.until.delete(state);
    return t !== undefined && t > now;
  }
  add(state: string, expiresAt: number): void {
    if (this.until.size >= MAX_USED_STATES) this.until.delete(this.until.keys().next().value!);
    this.until.set(state, expiresAt);
  }
  delete(state: string): void {
    this.until.delete(state);
  }
}

export interface CallbackOptions {
  /** Seals the code for its login (none: codes are refused). */
  sealCode?: CodeSealer;
  /** Checks the states the workers signed (none: every callback is refused, `no_key`). */
  stateMac?: StateMac;
  /** The rate per client address (default DEFAULT_CALLBACK_RATE). */
  rate?: RateOptions;
  now?: () => number;
}

export function installOAuthCallback(app: Hono, client: Client, options: CallbackOptions): void {
  const now = options.now ?? Date.now;
  const limiter = new RateLimiter(options.rate ?? DEFAULT_CALLBACK_RATE, now);
  const used = new UsedStates();
  app.all(OAUTH_CALLBACK_PATH, async (c) => {
    if (!limiter.take(clientAddress(c))) return page(c, 'too_many');
    if (c.req.method !== 'GET') return page(c, 'wrong_method');
    // A browser says what loads the page: a top-level document is a sign-in coming back; a script's fetch, an iframe or
    // an image (another site trying the callback from the person's browser) is refused. A client without a browser
    // (a bot following the redirects) sends no Sec-Fetch-Dest and is taken: the signed state is what authorizes it.
    const dest = c.req.header('sec-fetch-dest');
    if (dest !== undefined && dest !== 'document') return page(c, 'not_a_sign_in');
    const q = (k: string) => {
      const v = c.req.query(k);
      return v !== undefined && v.length <= MAX_PARAM_LENGTH ? v : undefined;
    };
    const state = q('state');
    const loginId = state ? loginIdOfState(state) : undefined;
    if (!state || !loginId) return page(c, 'unknown_state');
    const code = q('code');
    const error = q('error');
    if (code === undefined && error === undefined) return page(c, 'not_a_sign_in');
    if (!options.stateMac || (code !== undefined && !options.sealCode)) return page(c, 'no_key');
    const checked = options.stateMac.check(state, now());
    if (checked === 'forged') return page(c, 'unknown_state');
    if (checked === 'expired') return page(c, 'expired_state');
    if (used.has(state, now())) return page(c, 'unknown_state');
    used.add(state, StateMac.expiresAt(state));
    // The error code only, and only one of the list (RFC 6749 §4.1.2.1); never error_description (the server's text).
    const asError = error === undefined ? undefined : AS_ERRORS.has(error) ? error : 'other_error';
    const input: OAuthCallbackInput = {
      state,
      ...(code !== undefined ? { sealedCode: options.sealCode!(code) } : {}),
      ...(q('iss') !== undefined ? { iss: q('iss') } : {}),
      ...(asError !== undefined ? { error: asError } : {}),
    };
    let result: OAuthCallbackResult;
    try {
      // A worker that left the update unprocessed (it never reached the login) is no answer: sent again, not refused.
      result = await resendUnprocessed(() =>
        client.workflow.getHandle(loginId).executeUpdate<OAuthCallbackResult, [OAuthCallbackInput]>(OAUTH_CALLBACK_UPDATE, { args: [input] }),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError || /not found/i.test((err as Error).message)) {
        return page(c, 'unknown_state');
      }
      // Not delivered: the same link may be tried again.
      used.delete(state);
      return page(c, 'not_delivered');
    }
    if (result.status === 'signed-in') return page(c, 'signed_in');
    if (result.status === 'asked-again') return page(c, 'asked_again');
    if (result.status === 'refused') return page(c, 'unknown_state');
    if (asError !== undefined) return page(c, 'refused_by_server', asError);
    return page(c, 'sign_in_failed');
  });
}

/** Why the inbox takes no sign-ins (a warning at start), or undefined when it does. */
export function callbackWarning(options: CallbackOptions): string | undefined {
  if (options.stateMac) return undefined;
  return (
    `the inbox has no key to check sign-in states with (${STATE_KEYS_ENV}, or DURABLE_MCP_ENCRYPTION_KEYS as the workers have): ` +
    'its /oauth/callback refuses every sign-in'
  );
}
