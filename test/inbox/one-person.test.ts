/**
 * A person is one person (issue 40, docs/people.md): N of M counts people by issuer and subject, whatever scopes a
 * sign-in asked for. Bob signs in normally, then again after deleting `email` from the scope of the authorization URL
 * in his own browser: his second session is still Bob, so a 2-of-M approval (addressed to his role, or to anyone) does
 * not run on Bob alone. A second person's accept does run it, once. Real parts: a dev server, a worker, the v1 SDK
 * fixture server, oidc-provider as the issuer, the inbox, headless Chromium.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';
import { closeAll, eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { signInToInbox, startOidcIssuer, type OidcIssuer } from '../helpers/oidc-issuer.js';
import { waitForPending } from '../helpers/watch.js';

describe('a person is one person, whatever scopes a sign-in asked for', () => {
  const log = join(tempDir(), 'fx.jsonl');
  const fx = (approval: Record<string, unknown>) => ({ command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: log }, approval });
  const suite = suiteEnvironment({
    name: 'inbox-one-person',
    searchAttributes: true,
    mcpConfig: {
      mcpServers: {
        finance: fx({ tools: ['transfer'], approvals: 2, assignees: { roles: ['finance'] } }),
        anyone: fx({ tools: ['transfer'], approvals: 2 }),
      },
    },
  });
  let issuer: OidcIssuer;
  let inbox: InboxHandle;
  let browser: Browser;
  before(async () => {
    issuer = await startOidcIssuer({ bob: ['finance'], ana: ['finance'] });
    inbox = await startInbox({
      client: suite.env.client,
      host: '127.0.0.1',
      port: 0,
      signIn: { issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret, scopes: 'openid email roles' },
    });
    issuer.start(new URL('auth/callback', inbox.url).href);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(() => closeAll(browser, inbox, issuer));

  /** Sign in as `login` with `email` deleted from the scope of the authorization URL, as a person can in their browser. */
  async function signInWithoutEmail(page: Page, login: string): Promise<void> {
    let asked = '';
    // The inbox's sign-in answers with a redirect to the issuer: its Location is rewritten as the browser follows it.
    await page.route(
      (u) => u.href.startsWith(inbox.url) && u.pathname === '/auth/login',
      async (route) => {
        const response = await route.fetch({ maxRedirects: 0 });
        const location = response.headers()['location'];
        if (!location?.startsWith(issuer.issuer)) return route.fulfill({ response });
        const url = new URL(location);
        asked = url.searchParams.get('scope') ?? '';
        url.searchParams.set(
          'scope',
          asked
            .split(' ')
            .filter((s) => s !== 'email')
            .join(' '),
        );
        return route.fulfill({ response, headers: { ...response.headers(), location: url.href } });
      },
    );
    // Straight to the sign-in (a route sees only the first request of a redirect chain).
    await page.goto(new URL('/auth/login?next=%2F', inbox.url).href);
    await page.waitForSelector('input[name="login"]');
    assert.match(asked, /\bemail\b/, 'the inbox asked for email; the browser took it out');
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button[type="submit"]');
    await page.click('button[type="submit"]');
    await page.waitForURL((u) => u.href.startsWith(inbox.url) && !u.pathname.startsWith('/auth/'));
  }

  const approve = (page: Page, workflowId: string, id: string) =>
    page.evaluate(
      async ([w, i]) => {
        const res = await fetch('/api/answer', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ workflowId: w, answer: { id: i, ok: true } }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      [workflowId, id] as const,
    );

  it('bob signed in twice (once without email) is one approval of two, for a role and for anyone; ana makes two', async () => {
    const started = await Promise.all(
      ['finance', 'anyone'].map((server) =>
        suite.env.client.workflow.start(mcpToolCall, {
          taskQueue: suite.taskQueue,
          workflowId: `one-person-${server}-${Date.now()}`,
          args: [{ server, tool: 'transfer', arguments: { to: `carl-${server}`, amount: 5 } }],
        }),
      ),
    );
    const ids = await Promise.all(started.map(async (h) => (await waitForPending(h))[0]!.id));

    const first = await (await browser.newContext()).newPage();
    await signInToInbox(first, inbox.url, 'bob');
    assert.equal(await first.locator('#person').innerText(), 'bob@example.com');
    const second = await (await browser.newContext()).newPage();
    await signInWithoutEmail(second, 'bob');
    assert.equal(await second.locator('#person').innerText(), 'bob', 'the second session has no email');

    for (const [i, handle] of started.entries()) {
      assert.equal((await approve(first, handle.workflowId, ids[i]!)).status, 200);
      await approve(second, handle.workflowId, ids[i]!);
      const [details] = await suite.durable.pendingDetails(handle.workflowId);
      assert.equal(details?.request.id, ids[i], `${handle.workflowId}: still waiting`);
      assert.equal(details?.context.approvals?.accepted.length, 1, `${handle.workflowId}: bob counted once`);
    }
    const transfers = () => readFixtureLog(log).filter((e) => e.event === 'side_effect' && e.tool === 'transfer');
    assert.equal(transfers().length, 0, 'nothing ran on bob alone');

    // A second person: ana's accept makes two, and each tool runs once.
    const ana = await (await browser.newContext()).newPage();
    await signInToInbox(ana, inbox.url, 'ana');
    for (const [i, handle] of started.entries()) {
      assert.equal((await approve(ana, handle.workflowId, ids[i]!)).status, 200);
      const result = await handle.result();
      assert.equal(result.isError, false, result.output);
    }
    await eventually(async () => (transfers().length === 2 ? true : undefined), 'two transfers');
    assert.deepEqual(
      transfers()
        .map((e) => (e.args as { to: string }).to)
        .sort(),
      ['carl-anyone', 'carl-finance'],
    );
  });
});
