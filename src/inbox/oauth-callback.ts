/**
 * The inbox's `/oauth/callback` (servers behind OAuth; DESIGN §7, docs/oauth.md): where an authorization server sends
 * the browser back after a person signed in. It takes only what a browser sends back (a GET navigation with `code`,
 * `state`, `iss`, or `error`), finds the login from `state`, seals the code (it never reaches history in plaintext) and
 * hands it to the login workflow, whose `oauthCallback` update checks that the state is that login's pending one
 * (random, single use) before anything happens: an unknown or replayed state gets a clear page and has no effect.
 * No inbox token is asked for (the browser comes from the authorization server's site, without the inbox's cookie):
 * the state is what authorizes the request. The page shows nothing the authorization server sent.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { OAUTH_CALLBACK_PATH } from '../contract/client-metadata.js';
import { loginIdOfState } from '../contract/login.js';
import { OAUTH_CALLBACK_UPDATE } from '../contract/message-names.js';
import type { OAuthCallbackInput, OAuthCallbackResult } from '../workflows/internal-messages.js';

export { OAUTH_CALLBACK_PATH };

/** Seals an authorization code for the login workflow (the worker's seal; the CLI passes it). */
export type CodeSealer = (code: string) => string;

const MAX_PARAM_LENGTH = 4096;

function page(c: Context, status: 200 | 400 | 405 | 409 | 500 | 502, title: string, text: string) {
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
          </main>
        </body>
      </html>`,
    status,
  );
}

export function installOAuthCallback(app: Hono, client: Client, sealCode: CodeSealer | undefined): void {
  app.all(OAUTH_CALLBACK_PATH, async (c) => {
    if (c.req.method !== 'GET') return page(c, 405, 'Not a sign-in', 'The sign-in callback takes only the browser’s return from the authorization server.');
    // A browser says what loads the page: a top-level document is a sign-in coming back; a script's fetch, an iframe or
    // an image (another site trying the callback from the person's browser) is refused. A client without a browser
    // (a bot following the redirects) sends no Sec-Fetch-Dest and is taken: the state is what authorizes it.
    const dest = c.req.header('sec-fetch-dest');
    if (dest !== undefined && dest !== 'document') {
      return page(c, 400, 'Not a sign-in', 'The sign-in callback takes only a browser navigation.');
    }
    const q = (k: string) => {
      const v = c.req.query(k);
      return v !== undefined && v.length <= MAX_PARAM_LENGTH ? v : undefined;
    };
    const state = q('state');
    const loginId = state ? loginIdOfState(state) : undefined;
    if (!state || !loginId) return page(c, 400, 'Unknown sign-in', 'This sign-in link is unknown or was already used. Nothing was changed.');
    const code = q('code');
    const error = q('error');
    if (code === undefined && error === undefined) return page(c, 400, 'Not a sign-in', 'The authorization server sent neither a code nor an error.');
    if (code !== undefined && !sealCode) {
      return page(
        c,
        500,
        'Sign-in not taken',
        'This inbox cannot take sign-ins: it has no encryption key (DURABLE_MCP_ENCRYPTION_KEYS) to seal the code with.',
      );
    }
    const input: OAuthCallbackInput = {
      state,
      ...(code !== undefined ? { sealedCode: sealCode!(code) } : {}),
      ...(q('iss') !== undefined ? { iss: q('iss') } : {}),
      // The error code only, and only if it is one (RFC 6749 §4.1.2.1); never error_description (attacker-controlled text).
      ...(error !== undefined ? { error: /^[a-z_]{1,64}$/.test(error) ? error : 'invalid_error' } : {}),
    };
    let result: OAuthCallbackResult;
    try {
      result = await client.workflow.getHandle(loginId).executeUpdate<OAuthCallbackResult, [OAuthCallbackInput]>(OAUTH_CALLBACK_UPDATE, { args: [input] });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError || /not found/i.test((err as Error).message)) {
        return page(c, 409, 'Unknown sign-in', 'This sign-in link is unknown or was already used. Nothing was changed.');
      }
      return page(
        c,
        502,
        'Sign-in not delivered',
        'The sign-in could not be handed to its login workflow (is a worker running?). Try the link in the inbox again.',
      );
    }
    if (result.status === 'signed-in') return page(c, 200, 'Signed in', `${result.message}. The calls that waited go on; you can close this page.`);
    if (result.status === 'asked-again') return page(c, 409, 'Sign in again', `${result.message} in the inbox.`);
    return page(c, 400, 'Sign-in failed', result.message);
  });
}
