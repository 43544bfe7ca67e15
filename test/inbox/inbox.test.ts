/**
 * The inbox in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core) against a
 * real dev server, worker and fixture MCP servers over stdio.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DurableMcpClient } from '../../src/client/index.js';
import type { Request } from '../../src/contract/index.js';
import { awaitingInputKey } from '../../src/workflows/visibility.js';
import { isInboxError, startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { spawnNode } from '../../scripts/processes.js';
import { fixtureConfig, startWorker, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { demoServerPath } from '../../src/cli/dev.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = resolve(here, '..', '..', 'src', 'cli', 'main.js');
const hostileServer = resolve(here, '..', 'fixtures', 'inbox-hostile-server.js');
/** Test output (gitignored): the screenshot goes here. */
export const testOutput = resolve(here, '..', '..', '..', 'test-output');

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('the inbox in a browser', () => {
  let inbox: InboxHandle;
  let browser: Browser;
  const taskQueue = uniqueTaskQueue('inbox');
  const dir = tempDir();
  const logPath = join(dir, 'fixture.jsonl');
  const hostileLog = join(dir, 'hostile.jsonl');
  after(async () => {
    await browser?.close();
    await inbox?.close();
  });
  const suite = suiteEnvironment({
    taskQueue,
    searchAttributes: true,
    logPath,
    extraServers: {
      hostile: { command: [process.execPath, hostileServer], env: { FIXTURE_LOG: hostileLog } },
      // The demo server of `npm start`, for the README's screenshot of its own form.
      demo: { command: [process.execPath, demoServerPath] },
    },
  });
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, temporalUi: 'http://127.0.0.1:8233' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  /** Request ids derive from the call, so two workflows may ask under the same id: a form is found by both. */
  const formOf = (c: { workflowId: string; request: Request }) => `form[data-workflow-id="${c.workflowId}"][data-request-id="${c.request.id}"]`;
  async function call(server: string, tool: string, args?: Record<string, unknown>): Promise<{ workflowId: string; request: Request }> {
    // With arguments, as `npx durable-mcp call` starts it (its default workflow id); else under a test's id.
    const handle = await suite.durable.startToolCall({ server, tool, ...(args ? { arguments: args } : { workflowId: `inbox-${tool}-${Date.now()}` }) });
    const [request] = await waitForPending(handle);
    return { workflowId: handle.workflowId, request };
  }
  /** An ask_name call on a task queue of its own whose request is pending, and whose worker then stopped. */
  async function orphaned(name: string): Promise<{ handle: WorkflowHandle; request: Request }> {
    const queue = uniqueTaskQueue(name);
    const lonely = await startWorker(suite.env, { taskQueue: queue, mcpConfig: fixtureConfig(join(dir, `${name}.jsonl`)) });
    const lonelyRun = lonely.run();
    const handle = await new DurableMcpClient(suite.env.client, { taskQueue: queue }).startToolCall({
      server: 'fx',
      tool: 'ask_name',
      workflowId: `${name}-${Date.now()}`,
      elicitation: { holdFor: 1 },
    });
    const [request] = await waitForPending(handle);
    lonely.shutdown();
    await lonelyRun;
    return { handle, request: request! };
  }
  async function open(url = inbox.url): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url);
    return page;
  }
  /** Click one of a request's action buttons: a plain form post (303 to the list when taken, 422 with the form when rejected). */
  async function press(page: Page, c: { workflowId: string; request: Request }, action: 'accept' | 'decline' | 'cancel'): Promise<number> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/answer')),
      page.locator(`${formOf(c)} button[type=submit][value=${action}]`).click(),
    ]);
    await page.waitForLoadState('domcontentloaded');
    return response.status();
  }

  it('a form with every restricted type is filled in and submitted; the MCP server receives exactly that content, defaults included', async () => {
    const c = await call('fx', 'ask_form');
    const { workflowId } = c;
    const page = await open();
    try {
      const form = page.locator(formOf(c));
      await form.locator('[name=name]').fill('Ada Lovelace');
      await form.locator('[name=email]').fill('ada@example.org');
      await form.locator('[name=website]').fill('https://ada.example.org/');
      await form.locator('[name=birthday]').fill('1815-12-10');
      await form.locator('[name=meeting]').fill('2026-12-24T10:30');
      await form.locator('[name=age]').fill('36');
      await form.locator('[name=score]').fill('7.5');
      await form.locator('[name=color]').selectOption('green');
      await form.locator('[name=tags][value=a]').check();
      await form.locator('[name=tags][value=c]').check();
      await form.locator('[name=toppings][value=y]').check();
      // subscribe (default false) and size (default "m") are left as the form shows them.
      assert.equal(await form.locator('[name=size]').inputValue(), 'm', 'the default is filled in');
      assert.equal(await form.locator('[name=subscribe]').isChecked(), false);
      assert.equal(await form.locator('label', { hasText: 'Full name' }).locator('.required').count(), 1, 'a required field is marked');
      assert.equal(await form.locator('.description', { hasText: 'Your full name' }).count(), 1, 'descriptions are shown');
      assert.equal(await press(page, c, 'accept'), 303);
      assert.match(await page.locator('.notice').innerText(), /accept/);
      const result = await suite.durable.result(workflowId);
      assert.deepEqual(JSON.parse(result.output), {
        action: 'accept',
        content: {
          name: 'Ada Lovelace',
          email: 'ada@example.org',
          website: 'https://ada.example.org/',
          birthday: '1815-12-10',
          meeting: '2026-12-24T10:30:00Z',
          age: 36,
          score: 7.5,
          subscribe: false,
          color: 'green',
          size: 'm',
          tags: ['a', 'c'],
          toppings: ['y'],
        },
      });
      const received = readFixtureLog(logPath).filter((e) => e.event === 'received' && e.tool === 'ask_form');
      assert.deepEqual(received.at(-1)?.result, JSON.parse(result.output), 'the MCP server received exactly that content');
    } finally {
      await page.close();
    }
  });

  it('an invalid value shows the rejection next to its field, keeps what was typed, and a corrected submit succeeds', async () => {
    const c = await call('fx', 'ask_form');
    const { workflowId, request } = c;
    const page = await open();
    try {
      const form = () => page.locator(formOf(c));
      await form().locator('[name=name]').fill('Ada');
      await form().locator('[name=email]').fill('not-an-email');
      await form().locator('[name=age]').fill('36');
      await form().locator('[name=tags][value=b]').check();
      // The browser's own check would stop this submit (type=email); the workflow checks too: skip the browser's, as a
      // stale or hand-made post would, to see the workflow's rejection next to its field.
      await form().evaluate((f) => ((f as unknown as { noValidate: boolean }).noValidate = true));
      assert.equal(await press(page, c, 'accept'), 422);
      const emailError = form().locator('[data-error-for=email]');
      assert.equal(await emailError.isVisible(), true, 'the rejection is shown');
      assert.match(await emailError.innerText(), /email/i);
      // Next to its field: inside the email field's own block, and no other field shows an error.
      assert.equal(
        await form()
          .locator('.field', { has: page.locator('[name=email]') })
          .locator('[data-error-for=email]')
          .count(),
        1,
      );
      assert.equal(await form().locator('.field-error:visible').count(), 1);
      assert.equal(await form().locator('[name=name]').inputValue(), 'Ada', 'what was typed is kept');
      assert.equal(await form().locator('[name=email]').inputValue(), 'not-an-email');
      assert.equal(await form().locator('[name=tags][value=b]').isChecked(), true);
      assert.deepEqual(
        (await suite.durable.pendingDetails(workflowId)).map((p) => p.request.id),
        [request.id],
        'the request stays pending',
      );

      await form().locator('[name=email]').fill('ada@example.org');
      assert.equal(await press(page, c, 'accept'), 303);
      const result = JSON.parse((await suite.durable.result(workflowId)).output);
      assert.equal(result.action, 'accept');
      assert.equal(result.content.email, 'ada@example.org');
      assert.deepEqual(result.content.tags, ['b']);
    } finally {
      await page.close();
    }
  });

  it('decline and cancel reach the MCP server as decline and cancel', async () => {
    const declined = await call('fx', 'ask_name');
    const cancelled = await call('fx', 'ask_name');
    const page = await open();
    try {
      assert.equal(await press(page, declined, 'decline'), 303);
      assert.equal(await press(page, cancelled, 'cancel'), 303);
      assert.equal((await suite.durable.result(declined.workflowId)).output, 'declined');
      assert.equal((await suite.durable.result(cancelled.workflowId)).output, 'cancelled');
    } finally {
      await page.close();
    }
  });

  it('a URL-mode request shows its link and host, and "done" completes the call', async () => {
    const c = await call('fx', 'ask_url');
    const { workflowId, request } = c;
    const page = await open();
    try {
      const article = page.locator('article', { has: page.locator(formOf(c)) });
      assert.equal(await article.locator('.prompt').innerText(), 'Please sign in');
      assert.equal(await article.locator('.link .host strong').innerText(), 'example.test');
      const link = article.locator('a.url');
      assert.equal(await link.getAttribute('href'), request.url);
      assert.equal(await link.innerText(), request.url, 'the full link is shown');
      assert.equal(await article.locator('button[value=accept]').innerText(), 'Done');
      assert.equal(await press(page, c, 'accept'), 303);
      assert.deepEqual(JSON.parse((await suite.durable.result(workflowId)).output), { action: 'accept' });
    } finally {
      await page.close();
    }
  });

  it('a request created while the page is open appears without a reload; one answered through the CLI disappears', async () => {
    const page = await open();
    try {
      await page.evaluate(() => ((globalThis as any).sameDocument = true));
      const c = await call('fx', 'ask_name');
      const { workflowId, request } = c;
      const form = page.locator(formOf(c));
      await form.waitFor({ state: 'attached', timeout: 30_000 });
      const r = await runCli(['answer', workflowId, request.id, '--data', '{"name":"Ada"}'], {
        TEMPORAL_ADDRESS: suite.env.address,
        TEMPORAL_NAMESPACE: 'default',
      });
      assert.equal(r.code, 0, r.stderr);
      await form.waitFor({ state: 'detached', timeout: 30_000 });
      assert.equal(await page.evaluate(() => (globalThis as any).sameDocument), true, 'no reload happened');
      assert.equal((await suite.durable.result(workflowId)).output, 'hello Ada');
    } finally {
      await page.close();
    }
  });

  it('a request that expires disappears without a reload, and a signal answer too', async () => {
    const page = await open();
    try {
      await page.evaluate(() => ((globalThis as any).sameDocument = true));
      const expiring = await suite.durable.startToolCall({
        server: 'fx',
        tool: 'ask_name',
        workflowId: `inbox-expiring-${Date.now()}`,
        // 5 s: long enough to be seen pending on a busy machine before it expires.
        elicitation: { expiresIn: 5_000 },
      });
      const [expiringRequest] = await waitForPending(expiring);
      const signalled = await call('fx', 'ask_name');
      const expiringForm = page.locator(formOf({ workflowId: expiring.workflowId, request: expiringRequest }));
      const signalledForm = page.locator(formOf(signalled));
      await signalledForm.waitFor({ state: 'attached', timeout: 30_000 });
      await suite.env.client.workflow.getHandle(signalled.workflowId).signal('answer', { id: signalled.request.id, ok: true, data: { name: 'Grace' } });
      await signalledForm.waitFor({ state: 'detached', timeout: 30_000 });
      await expiringForm.waitFor({ state: 'detached', timeout: 30_000 });
      assert.equal((await suite.durable.result(expiring.workflowId)).output, 'cancelled', 'the expired request reached the server as cancel');
      assert.equal((await suite.durable.result(signalled.workflowId)).output, 'hello Grace');
      assert.equal(await page.evaluate(() => (globalThis as any).sameDocument), true, 'no reload happened');
    } finally {
      await page.close();
    }
  });

  it('answers without JavaScript: plain form posts, the rejection shown next to its field', async () => {
    const c = await call('fx', 'ask_form');
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(inbox.url);
      assert.match(await page.locator('#live').innerText(), /need JavaScript/, 'the page says live updates are off');
      const form = () => page.locator(formOf(c));
      await form().locator('[name=name]').fill('Ada');
      // Without JavaScript the browser's own check stops a submit that misses a required field …
      assert.equal(await form().locator('[name=age]:invalid').count(), 1, 'the browser marks the missing required field');
      // … and the workflow checks too (a stale or hand-made post skips the browser's check).
      await form().evaluate((f) => ((f as unknown as { noValidate: boolean }).noValidate = true));
      assert.equal(await press(page, c, 'accept'), 422);
      assert.equal(await form().locator('[data-error-for=age]').isVisible(), true, 'the missing required field is named next to it');
      assert.equal(await form().locator('[name=name]').inputValue(), 'Ada');
      await form().locator('[name=age]').fill('36');
      await form().locator('[name=tags][value=a]').check();
      assert.equal(await press(page, c, 'accept'), 303);
      assert.deepEqual(JSON.parse((await suite.durable.result(c.workflowId)).output).content, {
        name: 'Ada',
        age: 36,
        subscribe: false,
        size: 'm',
        tags: ['a'],
      });
    } finally {
      await context.close();
    }
  });

  it('a server whose message, titles and enum labels hold HTML and script renders inert; its javascript: URL never reaches the page', async () => {
    const form = await call('hostile', 'hostile_form');
    // The javascript: link is refused when it arrives (contract/admit.ts): the server gets -32602, nothing is pending.
    const refused = await suite.durable.startToolCall({ server: 'hostile', tool: 'hostile_url', workflowId: `inbox-hostile_url-${Date.now()}` });
    const refusedResult = await suite.durable.result(refused.workflowId);
    assert.equal(refusedResult.isError, true);
    assert.match(refusedResult.output, /url must be an https: link/);
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(inbox.url);
      // Let live updates merge the list a few times too.
      await page.waitForFunction(() => Number((globalThis as any).document.documentElement.dataset.refreshes || 0) >= 2);
      assert.equal(await page.evaluate(() => (globalThis as any).__pwned), undefined, 'no script ran');
      assert.deepEqual(dialogs, []);
      assert.equal(await page.locator('script').count(), 1, "the only script element is the inbox's own");
      assert.equal(await page.locator('img').count(), 0);
      assert.equal(await page.locator('a[href^="javascript:" i]').count(), 0, 'no javascript: link is clickable');
      const formArticle = page.locator('article', { has: page.locator(formOf(form)) });
      assert.match(await formArticle.locator('.prompt').innerText(), /<script>window\.__pwned='script'<\/script>/, 'the message shows as text');
      assert.match(await formArticle.locator('label').first().innerText(), /Title <img src=x/);
      assert.match(
        await formArticle
          .locator('option')
          .allInnerTexts()
          .then((t) => t.join('\n')),
        /Label <img src=x/,
      );
      assert.equal(await page.locator(`form[data-workflow-id="${refused.workflowId}"]`).count(), 0, 'the refused request is not listed');
      assert.equal(await formArticle.locator('[name=note]').inputValue(), `"><script>window.__pwned='default'</script>`, 'a hostile default stays a value');

      assert.equal(await press(page, form, 'accept'), 303);
      assert.equal(await page.evaluate(() => (globalThis as any).__pwned), undefined);
      await suite.durable.result(form.workflowId);
      const received = readFixtureLog(hostileLog);
      assert.deepEqual(received.find((e) => e.tool === 'hostile_form')?.result, {
        action: 'accept',
        content: { note: `"><script>window.__pwned='default'</script>` },
      });
      assert.equal(
        received.find((e) => e.tool === 'hostile_url'),
        undefined,
        'the server got no result for its refused elicitation',
      );
    } finally {
      await page.close();
    }
  });

  it('a workflow whose worker is gone is still listed with its request, from its memo (no worker is asked to list it)', async () => {
    const { handle, request } = await orphaned('inbox-lonely');
    const page = await open();
    try {
      const row = page.locator(`article[data-workflow-id="${handle.workflowId}"]`);
      await row.waitFor({ timeout: 30_000 });
      assert.equal(await row.locator('.prompt').innerText(), request.prompt);
      assert.equal(await row.locator(`form[data-request-id="${request.id}"]`).count(), 1);
    } finally {
      await page.close();
      await handle.terminate('test done');
    }
  });

  it('an answer its workflow cannot take now (no worker answers) comes back with what was typed and why, not as "no longer pending"', async () => {
    // Its worker stopped: the task queue still counts as polled for a minute, so the inbox waits for a worker, in vain;
    // or the server already says no poller was seen recently. Either way it is "no worker", and what was typed stays.
    const { handle, request } = await orphaned('inbox-unanswered');
    const c = { workflowId: handle.workflowId, request };
    const page = await open();
    try {
      await page.locator(formOf(c)).waitFor({ timeout: 30_000 });
      await page.locator(`${formOf(c)} [name=name]`).fill('Ada');
      assert.equal(await press(page, c, 'accept'), 503);
      assert.equal(await page.locator(`${formOf(c)} [name=name]`).inputValue(), 'Ada');
      assert.match(
        await page.locator(`${formOf(c)} .form-error`).innerText(),
        /^Your answer was not sent: .*(no worker answered within 15 s|no worker has polled its task queue recently)/,
      );
    } finally {
      await page.close();
      await handle.terminate('test done');
    }
  });

  it('a workflow without the listing memo (started before it) whose task queue has no worker is listed as unreachable with the reason', async () => {
    const nobody = uniqueTaskQueue('inbox-nobody');
    // What visibility shows of a workflow that awaits input and predates the memo: the search attribute, no memo.
    const handle = await suite.env.client.workflow.start('mcpToolCall', {
      taskQueue: nobody,
      workflowId: `inbox-nobody-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name' }],
      typedSearchAttributes: [{ key: awaitingInputKey, value: true }],
    });
    const page = await open();
    try {
      const row = page.locator(`article.unreachable[data-workflow-id="${handle.workflowId}"]`);
      await row.waitFor({ timeout: 30_000 });
      // The client's listing's wording (src/client/listing.ts), which names the task queue.
      assert.match(await row.locator('.reason').innerText(), new RegExp(`no worker (polls task queue|answered within \\d+ s \\(task queue) "${nobody}"`));
    } finally {
      await page.close();
      await handle.terminate('test done');
    }
  });

  it("a screenshot of the inbox with the demo's book_table form (the README's docs/inbox.png with RECORD_SCREENSHOT=1)", async () => {
    const c = await call('demo', 'book_table', { restaurant: 'Chez Temporal' });
    const { workflowId, request } = c;
    // The page as a newcomer sees it after the README's `call`: this request only (others left by earlier tests are cancelled).
    for (const other of await suite.durable.listAwaitingInput()) {
      for (const { request: r } of other.pending)
        if (other.workflowId !== workflowId) await suite.durable.cancelRequest(other.workflowId, r.id).catch(() => undefined);
    }
    const page = await browser.newPage({ viewport: { width: 1000, height: 460 } });
    try {
      await page.goto(inbox.url);
      const form = page.locator(formOf(c));
      await form.waitFor();
      await page.locator('form[data-request-id]').nth(1).waitFor({ state: 'detached', timeout: 30_000 });
      assert.match(await page.locator('main').innerText(), /Booking a table at Chez Temporal\. Who is coming, and when\?/);
      for (const label of ['Name on the booking', 'Guests', 'Date', 'Seating'])
        assert.equal((await form.locator('label', { hasText: label }).count()) > 0, true, label);
      assert.equal(await form.locator('[name=seating]').inputValue(), 'inside', 'the default is filled in');
      mkdirSync(testOutput, { recursive: true });
      const path = join(testOutput, 'inbox.png');
      const png = await page.screenshot({ path, fullPage: true });
      assert.ok(png.length > 10_000, `a real image (${png.length} bytes) at ${path}`);
      assert.deepEqual([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG');
      if (process.env.RECORD_SCREENSHOT === '1') writeFileSync(resolve(here, '..', '..', '..', 'docs', 'inbox.png'), png);
    } finally {
      await page.close();
      await suite.durable.cancelRequest(workflowId, request.id);
    }
  });

  it('on a non-loopback bind, no page or API answers without the token', async () => {
    await assert.rejects(
      startInbox({ client: suite.env.client, host: '0.0.0.0', port: 0, token: '' }),
      (err: unknown) => isInboxError(err, 'TokenRequired') && err.host === '0.0.0.0',
    );
    const token = 'tok-' + Math.random().toString(36).slice(2);
    const open0 = await startInbox({ client: suite.env.client, host: '0.0.0.0', port: 0, token });
    const base = open0.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const routes: Array<[string, string]> = [
        ['GET', '/'],
        ['GET', '/fragment'],
        ['GET', '/api/requests'],
        ['GET', '/static/inbox.js'],
        ['POST', '/answer?workflow=w&request=r'],
        ['POST', '/api/answer'],
      ];
      for (const [method, path] of routes) {
        const variants: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong' }, { cookie: 'durable_mcp_inbox_token=wrong' }];
        for (const headers of variants) {
          const res = await fetch(new URL(path, base), { method, headers: { ...headers, origin: base.replace(/\/$/, '') } });
          assert.equal(res.status, 401, `${method} ${path} with ${JSON.stringify(headers)}`);
        }
      }
      const ok = await fetch(new URL('/api/requests', base), { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);

      const page = await browser.newPage();
      try {
        const denied = await page.goto(base);
        assert.equal(denied?.status(), 401);
        assert.doesNotMatch(await page.content(), /durable-mcp inbox<\/h1>/);
        const allowed = await page.goto(`${base}?token=${token}`);
        assert.equal(allowed?.status(), 200);
        assert.equal(new URL(page.url()).search, '', 'the token leaves the address bar');
        await page.locator('#live', { hasText: 'updated' }).waitFor({ timeout: 30_000 });
      } finally {
        await page.close();
      }
    } finally {
      await open0.close();
    }
  });

  it('refuses form posts from another site', async () => {
    const { workflowId, request } = await call('fx', 'ask_name');
    try {
      const res = await fetch(new URL(`/answer?workflow=${encodeURIComponent(workflowId)}&request=${encodeURIComponent(request.id)}`, inbox.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        body: '__action=cancel',
      });
      assert.equal(res.status, 403);
      // Bodies a cross-site page may send without a CORS preflight are not JSON to the API, even same-origin.
      const plain = await fetch(new URL('/api/answer', inbox.url), {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin: new URL(inbox.url).origin },
        body: JSON.stringify({ workflowId, answer: { id: request.id, ok: false } }),
      });
      assert.equal(plain.status, 415);
      // DNS rebinding: another site's name resolving to 127.0.0.1 reaches a token-less inbox under a foreign Host.
      const rebound = await new Promise<number>((res, rej) => {
        const { port } = new URL(inbox.url);
        httpRequest({ host: '127.0.0.1', port, path: '/api/requests', headers: { host: `evil.example:${port}` } }, (r) => {
          r.resume();
          res(r.statusCode ?? 0);
        })
          .on('error', rej)
          .end();
      });
      assert.equal(rebound, 421);
      assert.deepEqual(
        (await suite.durable.pendingDetails(workflowId)).map((p) => p.request.id),
        [request.id],
        'the request is still pending',
      );
    } finally {
      await suite.durable.decline(workflowId, request.id);
    }
  });

  it('a JSON API lists the requests and answers through submitAnswer, with the rejection reason', async () => {
    const { workflowId, request } = await call('fx', 'ask_name');
    const list = (await (await fetch(new URL('/api/requests', inbox.url))).json()) as { rows: Array<{ workflowId: string; request: Request }> };
    assert.deepEqual(list.rows.find((r) => r.workflowId === workflowId)?.request, request);
    const post = (answer: unknown) =>
      fetch(new URL('/api/answer', inbox.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workflowId, answer }),
      });
    const bad = await post({ id: request.id, ok: true, data: { name: 7 } });
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { error: string }).error, /field "name"/);
    const good = await post({ id: request.id, ok: true, data: { name: 'Ada' } });
    assert.deepEqual(await good.json(), { id: request.id, action: 'accept' });
    assert.equal((await suite.durable.result(workflowId)).output, 'hello Ada');
  });

  it('the page has a strict Content-Security-Policy', async () => {
    const res = await fetch(inbox.url);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal((await fetch(new URL('/static/inbox.js', inbox.url))).headers.get('content-type'), 'text/javascript; charset=utf-8');
  });
  it('`durable-mcp inbox` serves the page and refuses a non-loopback bind without a token; `dev` runs the inbox and prints its address', async () => {
    const temporal = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_INBOX_TOKEN: '' };
    const refused = await runCli(['inbox', '--host', '0.0.0.0', '--port', '0'], temporal);
    assert.equal(refused.code, 2, 'a usage error (documented exit code)');
    assert.match(refused.stderr, /^durable-mcp: the inbox refuses to listen on 0\.0\.0\.0 without a token: set DURABLE_MCP_INBOX_TOKEN/);

    const served = spawnNode([cli, 'inbox', '--port', '0'], temporal);
    try {
      const line = await served.waitFor(/durable-mcp inbox: (http:\/\/127\.0\.0\.1:\d+\/)/);
      const url = /durable-mcp inbox: (\S+)/.exec(line)![1];
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /durable-mcp inbox<\/h1>/);
    } finally {
      assert.equal(await served.kill('SIGTERM'), 0, served.output());
    }

    const dev = spawnNode([cli, 'dev', '--data-dir', join(dir, 'dev'), '--inbox-port', '0'], {
      ...temporal,
      DURABLE_MCP_TASK_QUEUE: uniqueTaskQueue('inbox-dev'),
    });
    try {
      await dev.waitFor(/Ctrl-C stops everything/, 90_000);
      const url = /Inbox:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(dev.output())?.[1];
      assert.ok(url, `dev prints the inbox address:\n${dev.output()}`);
      assert.equal((await fetch(url)).status, 200);
    } finally {
      await dev.kill('SIGTERM');
    }
  });
});
