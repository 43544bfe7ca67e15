/**
 * Addressed requests and sign-in to the inbox (docs/people.md), in headless Chromium with oidc-provider as the issuer:
 * two people sign in; each sees the requests addressed to them (by email, or by role) and "all I may answer"; one
 * answers theirs; an answer to a request not addressed to them is refused (403, and the request is not shown); an
 * email the issuer has not verified is not theirs; the history records the signed-in email with its source (oidc) and its
 * assurance (issuer-verified: the worker checked the inbox's proof under the key they share); the
 * token still lets a machine in; a forged session is refused.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { closeAll, eventually, startWaitingCalls, suiteEnvironment, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';
import { signInToInbox, startOidcIssuer, type OidcIssuer } from '../helpers/oidc-issuer.js';
import { receiver } from '../helpers/webhook.js';

const SETUP_MS = 300_000;
const TOKEN = 'machine-token-for-tests';
/** The answer-link key the inbox and the worker share: the worker checks the inbox's proof of each answer's sender with it. */
const KEY = 'sign-in-test-answer-key-0123456789abcdef';
/** The worker's webhook (its `notify` holds the key): it only has to answer. */
const hook = await receiver();

describe('sign-in to the inbox and addressed requests', () => {
  let inbox: InboxHandle;
  let issuer: OidcIssuer;
  let browser: Browser;
  const dir = tempDir();
  after(() => closeAll(browser, inbox, issuer, hook));
  const suite = suiteEnvironment({
    taskQueue: uniqueTaskQueue('inbox-sign-in'),
    searchAttributes: true,
    logPath: join(dir, 'fx.jsonl'),
    configFields: { notify: { url: hook.url, linkKey: KEY } },
  });
  before(async () => {
    // Mallory's issuer lets her claim Ana's address without verifying it.
    issuer = await startOidcIssuer({ bob: ['finance'] }, { mallory: { email: 'ana@example.com', verified: false } });
    inbox = await startInbox({
      client: suite.env.client,
      host: '127.0.0.1',
      port: 0,
      refreshMs: 300,
      token: TOKEN,
      answerLinkKey: KEY,
      signIn: { issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret, scopes: 'openid email roles' },
    });
    issuer.start(new URL('auth/callback', inbox.url).href);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  const row = (page: Page, workflowId: string) => page.locator(`#rows article[data-workflow-id="${workflowId}"]`);
  const shown = async (page: Page, ids: string[]) => {
    const out: string[] = [];
    for (const id of ids) if ((await row(page, id).count()) > 0) out.push(id);
    return out;
  };

  it("two people sign in, each sees theirs, one answers; the other's answer to a request not theirs is refused", async () => {
    const prefix = `signin-${process.pid}-${Date.now()}`;
    const [forAna, forFinance, forAnyone] = await startWaitingCalls(suite.durable, [
      { server: 'fx', tool: 'ask_name', workflowId: `${prefix}-ana`, assignees: { users: ['ana@example.com'] } },
      { server: 'fx', tool: 'ask_name', workflowId: `${prefix}-finance`, assignees: { roles: ['finance'] } },
      { server: 'fx', tool: 'ask_name', workflowId: `${prefix}-anyone` },
    ]);
    const ids = [forAna!, forFinance!, forAnyone!];
    await Promise.all(ids.map((id) => waitForPending(suite.env.client.workflow.getHandle(id), 1, SETUP_MS)));
    // The request's context carries its assignees (pendingDetails, the listing's memo).
    const [detail] = await suite.durable.pendingDetails(forAna!);
    assert.deepEqual(detail!.context.assignees, { users: ['ana@example.com'] });

    const ana = await (await browser.newContext()).newPage();
    const bob = await (await browser.newContext()).newPage();
    await signInToInbox(ana, inbox.url, 'ana');
    await signInToInbox(bob, inbox.url, 'bob');
    assert.equal(await ana.locator('#person').innerText(), 'ana@example.com');
    assert.equal(await bob.locator('#person').innerText(), 'bob@example.com');
    // "All I may answer": theirs and the unaddressed one; never the other's.
    await row(ana, forAnyone!).waitFor({ timeout: SETUP_MS });
    await row(ana, forAna!).waitFor({ timeout: SETUP_MS });
    assert.deepEqual(await shown(ana, ids), [forAna, forAnyone]);
    await row(bob, forFinance!).waitFor({ timeout: SETUP_MS });
    await row(bob, forAnyone!).waitFor({ timeout: SETUP_MS });
    assert.deepEqual(await shown(bob, ids), [forFinance, forAnyone]);
    // An unverified email is not Mallory's: she is her subject only, and Ana's request is not hers to see.
    const mallory = await (await browser.newContext()).newPage();
    await signInToInbox(mallory, inbox.url, 'mallory');
    assert.equal(await mallory.locator('#person').innerText(), 'mallory');
    await row(mallory, forAnyone!).waitFor({ timeout: SETUP_MS });
    assert.deepEqual(await shown(mallory, ids), [forAnyone]);
    assert.match(await row(bob, forFinance!).locator('.assignees').innerText(), /for role finance/);
    // "Mine": only what is addressed to them.
    await Promise.all([ana.waitForURL(/show=mine/), ana.click('#show-mine')]);
    await row(ana, forAna!).waitFor({ timeout: SETUP_MS });
    assert.deepEqual(await shown(ana, ids), [forAna]);

    // Ana answers hers.
    await row(ana, forAna!).locator('[name=name]').fill('Ana');
    await Promise.all([ana.waitForURL(/answered=/), row(ana, forAna!).locator('button[value=accept]').click()]);
    assert.equal((await suite.durable.result(forAna!)).output, 'hello Ana');

    // Ana's answer to finance's request: refused, and the request (its form, prompt, arguments) is not shown to her.
    const refused = await ana.evaluate(
      async (wf) => {
        const [id] = wf.split('|');
        const body = new URLSearchParams({ name: 'typed by Ana', __action: 'accept' });
        const res = await fetch(`/answer?workflow=${encodeURIComponent(id!)}&request=${encodeURIComponent(wf.split('|')[1]!)}`, { method: 'POST', body });
        return { status: res.status, text: await res.text() };
      },
      `${forFinance}|${(await suite.durable.pendingDetails(forFinance!))[0]!.request.id}`,
    );
    assert.equal(refused.status, 403);
    assert.match(refused.text, /is not addressed to you \(ana@example\.com\)/);
    assert.doesNotMatch(refused.text, /typed by Ana/);
    assert.ok(!refused.text.includes(`data-workflow-id="${forFinance}"`), "finance's request is not on Ana's page");
    assert.equal((await suite.durable.pendingDetails(forFinance!)).length, 1, 'still pending');
    // The JSON API refuses it too; and a request id that is not pending is refused before anything is sent (409).
    const api = async (wf: string, id: string) =>
      ana.evaluate(
        async ([w, i]) => {
          const res = await fetch('/api/answer', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ workflowId: w, answer: { id: i, ok: false, reason: 'declined' } }),
          });
          return { status: res.status, error: ((await res.json()) as { error?: string }).error };
        },
        [wf, id] as const,
      );
    const financeId = (await suite.durable.pendingDetails(forFinance!))[0]!.request.id;
    assert.deepEqual((await api(forFinance!, financeId)).status, 403);
    assert.deepEqual(await api(forFinance!, 'x'), { status: 409, error: 'request "x" is not pending (answered elsewhere, expired, or withdrawn)' });

    // Bob (role finance) answers his.
    await row(bob, forFinance!).locator('[name=name]').fill('Bob');
    await Promise.all([bob.waitForURL(/answered=/), row(bob, forFinance!).locator('button[value=accept]').click()]);
    assert.equal((await suite.durable.result(forFinance!)).output, 'hello Bob');

    // The history records the signed-in email, the issuer and the subject, with the source (the token's holder sees all).
    type HistoryRows = { rows: Array<{ workflowId: string; by: string; source?: string; assurance?: string }> };
    const history = await eventually(
      async () => {
        const res = await fetch(new URL('api/history', inbox.url), { headers: { authorization: `Bearer ${TOKEN}` } });
        const { rows } = (await res.json()) as HistoryRows;
        const a = rows.find((r) => r.workflowId === forAna);
        const b = rows.find((r) => r.workflowId === forFinance);
        return a && b ? { a: a.by, b: b.by, source: [a.source, b.source], assurance: [a.assurance, b.assurance] } : undefined;
      },
      'both answers in the history',
      60_000,
      500,
    );
    assert.equal(history.a, `ana@example.com (oidc ${issuer.issuer} sub=ana)`);
    assert.equal(history.b, `bob@example.com (oidc ${issuer.issuer} sub=bob)`);
    assert.deepEqual(history.source, ['oidc', 'oidc'], 'the record says where who answered comes from');
    // The worker checked the inbox's proof (the shared key): the record says how strongly it knows the person.
    assert.deepEqual(history.assurance, ['issuer-verified', 'issuer-verified']);
    // Each person's history has what was addressed to them.
    const historyOf = async (page: Page) =>
      ((await page.evaluate(async () => (await fetch('/api/history')).json())) as HistoryRows).rows.map((r) => r.workflowId);
    assert.ok((await historyOf(ana)).includes(forAna!));
    assert.ok((await historyOf(bob)).includes(forFinance!));
    // ... and nothing addressed to others (needs the resolution's assignees: src/workflows/host/visibility.ts resolutionOf).
    assert.ok(!(await historyOf(ana)).includes(forFinance!), "finance's request is not in Ana's history");
    assert.ok(!(await historyOf(bob)).includes(forAna!), "Ana's request is not in Bob's history");
  });

  it('the token still lets a machine in; without a session or the token a page goes to sign in; a forged session is refused', async () => {
    const ok = await fetch(new URL('api/requests', inbox.url), { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    const none = await fetch(inbox.url, { redirect: 'manual' });
    assert.equal(none.status, 303);
    assert.match(none.headers.get('location') ?? '', /^\/auth\/login\?next=/);
    const forged = Buffer.from(JSON.stringify({ sub: 'eve', iss: issuer.issuer, roles: ['finance'], exp: Date.now() + 60_000 })).toString('base64url');
    const res = await fetch(new URL('api/requests', inbox.url), { headers: { cookie: `durable_mcp_inbox_person=${forged}.AAAA` } });
    assert.equal(res.status, 401);
    // A callback this inbox did not start is refused before any token request.
    const stray = await fetch(new URL('auth/callback?code=x&state=y', inbox.url));
    assert.equal(stray.status, 400);
  });
});
