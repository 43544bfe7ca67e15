/**
 * The inbox with many waiting requests, in headless Chromium: the first page renders from visibility, a filter narrows
 * it, a new request appears in every open tab without a reload (server-sent events from the inbox's one refresh loop),
 * an answered one leaves every tab, and the history shows who answered (a trusted proxy header) and the call's result.
 * N is DURABLE_MCP_TEST_INBOX_N (default 60); the bench's B7 runs the same at 1,000 and 10,000.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DurableMcpClient } from '../../src/client/index.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import type { DurableMcpWorker } from '../../src/worker.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';
import { createLocalEnv, eventually, fixtureConfig, startWorker, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';

const N = Number(process.env.DURABLE_MCP_TEST_INBOX_N) || 60;

describe(`the inbox at ${N} waiting requests, live in every tab`, () => {
  let env: TestWorkflowEnvironment;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  let inbox: InboxHandle;
  let browser: Browser;
  let context: BrowserContext;
  let dmc: DurableMcpClient;
  const taskQueue = uniqueTaskQueue('inbox-live');
  const dir = tempDir();
  const prefix = `live-${process.pid}`;

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true });
    worker = await startWorker(env, {
      taskQueue,
      mcpConfig: fixtureConfig(join(dir, 'fx.jsonl'), { fy: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fy.jsonl') } } }),
    });
    running = worker.run();
    dmc = new DurableMcpClient(env.client, { taskQueue });
    inbox = await startInbox({ client: env.client, host: '127.0.0.1', port: 0, userHeader: 'X-Forwarded-User', refreshMs: 500 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    // As a reverse proxy that signs people in would: it names the person in a header the inbox is told to trust.
    context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-User': 'grace@example.org' } });
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await inbox?.close();
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  const rowsOf = (page: Page, workflowId: string) => page.locator(`#rows article[data-workflow-id="${workflowId}"]`);

  it('first page, a filter, a new request in every tab, an answered one leaving every tab, and the history with who answered', async () => {
    // N calls wait (released at once: nothing held), 3 of them on server fy.
    const start = (server: string, i: number) =>
      dmc.startToolCall({ server, tool: 'ask_name', workflowId: `${prefix}-${server}-${i}`, elicitation: { holdFor: 1 } });
    for (let i = 0; i < N - 3; i += 20) await Promise.all(Array.from({ length: Math.min(20, N - 3 - i) }, (_, k) => start('fx', i + k)));
    for (let i = 0; i < 3; i++) await start('fy', i);
    await eventually(
      async () => (await env.client.workflow.count(`TaskQueue = '${taskQueue}' AND DurableMcpAwaitingInput = true`)).count >= N,
      `${N} awaiting input`,
      300_000,
      500,
    );

    const tabs = await Promise.all([0, 1, 2].map(() => context.newPage()));
    await tabs[0]!.goto(inbox.url);
    await tabs[1]!.goto(inbox.url);
    await tabs[2]!.goto(`${inbox.url}?server=fy`);
    // The first page: a page of rows (50 by default), not all N.
    const shown = await tabs[0]!.locator('#rows article.request').count();
    assert.equal(shown, Math.min(N, 50));
    assert.equal(await tabs[0]!.locator('a[rel=next]').count(), N > 50 ? 1 : 0, 'a next page when there are more');
    // The filter narrows to fy's 3 requests.
    assert.equal(await tabs[2]!.locator('#rows article.request').count(), 3);
    assert.deepEqual(new Set(await tabs[2]!.locator('#rows .server').allInnerTexts()), new Set(['fy']));
    for (const tab of tabs) await tab.waitForFunction(() => Number((globalThis as any).document.documentElement.dataset.refreshes || 0) >= 1);

    // A new request (server fy) appears in every tab without a reload: the default view shows the newest first.
    const fresh = await start('fy', 99);
    for (const tab of tabs) await rowsOf(tab, fresh.workflowId).waitFor({ timeout: 30_000 });
    const request = (await dmc.pendingDetails(fresh.workflowId))[0]!.request;
    const form = (tab: Page) => tab.locator(`form[data-workflow-id="${fresh.workflowId}"][data-request-id="${request.id}"]`);

    // The browser's own validation stops a submit that misses the required name (no post is sent) …
    let posts = 0;
    tabs[0]!.on('request', (r) => {
      if (r.method() === 'POST') posts++;
    });
    await form(tabs[0]!).locator('button[value=accept]').click();
    assert.equal(await form(tabs[0]!).locator('[name=name]:invalid').count(), 1);
    assert.equal(posts, 0, 'the browser sent nothing');
    // … and the field says it is required before anyone types.
    assert.match(await form(tabs[0]!).locator('.limits').innerText(), /required/);

    // Answered in tab 0: it leaves tab 0 at once (its redirect) and the other tabs without a reload.
    await form(tabs[0]!).locator('[name=name]').fill('Grace');
    await Promise.all([tabs[0]!.waitForURL(/answered=/), form(tabs[0]!).locator('button[value=accept]').click()]);
    assert.equal(await rowsOf(tabs[0]!, fresh.workflowId).count(), 0, 'gone from the tab that answered');
    for (const tab of tabs.slice(1)) await rowsOf(tab, fresh.workflowId).waitFor({ state: 'detached', timeout: 30_000 });
    assert.match((await dmc.result(fresh.workflowId)).output, /Grace/);

    // The history: who answered (the proxy's header), the outcome and the call's result.
    const history = await context.newPage();
    const entry = history.locator(`#history article[data-workflow-id="${fresh.workflowId}"]`);
    await eventually(
      async () => {
        await history.goto(new URL('/history', inbox.url).href);
        return (await entry.locator('.result').count()) === 1;
      },
      'the answered request in the history, with its result',
      60_000,
      500,
    );
    assert.equal(await entry.locator('.by').innerText(), 'grace@example.org');
    assert.equal(await entry.locator('.outcome').innerText(), 'accepted');
    assert.match(await entry.locator('.result').innerText(), /Grace/);
    for (const tab of [...tabs, history]) await tab.close();
  });
});
