/**
 * Sign-out revokes the session on every replica (issue 40): a copy of the session cookie taken before `POST
 * /auth/logout` no longer opens the inbox, on the replica that signed out (at once) and on another replica sharing the
 * session key (through Temporal: src/inbox/sign-outs.ts). Real parts: a dev server, oidc-provider as the issuer, two
 * inbox processes' servers, headless Chromium for the sign-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { signOutWorkflowId } from '../../src/inbox/sign-outs.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { closeAll, eventually, suiteEnvironment } from '../helpers/temporal.js';
import { signInToInbox, startOidcIssuer, type OidcIssuer } from '../helpers/oidc-issuer.js';

const SESSION_KEY = 'a-session-key-the-replicas-share-0123456789';

describe('sign-out revokes the session on every replica', () => {
  const suite = suiteEnvironment({ name: 'inbox-sign-out', searchAttributes: true });
  let issuer: OidcIssuer;
  let a: InboxHandle;
  let b: InboxHandle;
  let browser: Browser;
  before(async () => {
    issuer = await startOidcIssuer({ bob: ['finance'] });
    const replica = () =>
      startInbox({
        client: suite.env.client,
        host: '127.0.0.1',
        port: 0,
        signIn: { issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret, scopes: 'openid email', sessionSecret: SESSION_KEY },
      });
    a = await replica();
    b = await replica();
    issuer.start(new URL('auth/callback', a.url).href);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(() => closeAll(browser, a, b, issuer));

  it('a copied cookie opens neither replica once its person signed out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInToInbox(page, a.url, 'bob');
    const session = (await context.cookies()).find((c) => c.name === 'durable_mcp_inbox_person');
    assert.ok(session, 'the session cookie');
    const copied = { cookie: `${session.name}=${session.value}` };
    const status = async (url: string) => (await fetch(new URL('/api/requests', url), { headers: copied, redirect: 'manual' })).status;
    assert.equal(await status(a.url), 200, 'the copy opens the replica that signed in');
    assert.equal(await status(b.url), 200, 'and the other replica (the same session key)');

    const signedOut = await page.evaluate(async () => (await fetch('/auth/logout', { method: 'POST', redirect: 'manual' })).type);
    assert.ok(signedOut, 'signed out');
    assert.equal(await status(a.url), 401, 'the replica that signed out refuses the copy at once');
    await eventually(async () => ((await status(b.url)) === 401 ? true : undefined), 'the other replica refuses the copy');
    assert.equal((await fetch(new URL('/', b.url), { headers: copied, redirect: 'manual' })).status, 303, 'a page goes to sign in');

    // The record is one workflow nobody runs, closed by the server at the session's own expiry.
    const record = await eventually(async () => {
      for await (const w of suite.env.client.workflow.list({ query: `WorkflowType = 'durableMcpInboxSignOut'` })) return w;
      return undefined;
    }, 'the sign-out record');
    assert.match(record.workflowId, /^durable-mcp-inbox-sign-out-[0-9a-f]{40}$/);
    assert.ok(!record.workflowId.includes(session.value.slice(0, 12)), 'the record names no part of the cookie');
    assert.equal(signOutWorkflowId('x').length, 'durable-mcp-inbox-sign-out-'.length + 40);

    // Signing in again gives a new session, which opens both.
    const later = await browser.newContext();
    await signInToInbox(await later.newPage(), a.url, 'bob');
    const fresh = (await later.cookies()).find((c) => c.name === 'durable_mcp_inbox_person')!;
    assert.notEqual(fresh.value, session.value);
    const again = await fetch(new URL('/api/requests', b.url), { headers: { cookie: `${fresh.name}=${fresh.value}` } });
    assert.equal(again.status, 200, 'a new session is not revoked');
    await context.close();
    await later.close();
  });
});
