/**
 * The inbox's live refresh leaves the rows that stay alone, in headless Chromium: a refresh that changes the list (a
 * request answered elsewhere, a new one) lands while a person types into a form or holds its Accept button down, and
 * what they typed, the focus and the press all survive, so the answer goes through. The page's list is refreshed every
 * 200 ms here, and every refresh sends rows (their countdowns change), so each of these waits spans several merges.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Request } from '../../src/contract/index.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { startWaitingCalls, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

/**
 * How long a call may take to ask: on a loaded machine (CI runs two test files at once, and test/inbox/live.test.ts
 * starts 60 MCP servers) a first connect can time out (30 s) and be retried; live.test.ts waits as long for its calls.
 */
const SETUP_MS = 300_000;

describe('the inbox live refresh keeps the row a person works in', () => {
  let inbox: InboxHandle;
  let browser: Browser;
  const taskQueue = uniqueTaskQueue('inbox-rows');
  const dir = tempDir();
  const prefix = `rows-${process.pid}`;
  let started = 0;
  after(async () => {
    await browser?.close();
    await inbox?.close();
  });
  const suite = suiteEnvironment({ taskQueue, searchAttributes: true, logPath: join(dir, 'fx.jsonl') });
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, refreshMs: 200 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  /** Start `n` ask_name calls and wait until each has its request; returns them, newest last. */
  async function waiting(n: number): Promise<Array<{ workflowId: string; request: Request }>> {
    const ids = await startWaitingCalls(
      suite.durable,
      Array.from({ length: n }, () => ({ server: 'fx', tool: 'ask_name', workflowId: `${prefix}-${++started}` })),
    );
    return Promise.all(
      ids.map(async (workflowId) => ({ workflowId, request: (await waitForPending(suite.env.client.workflow.getHandle(workflowId), 1, SETUP_MS))[0]! })),
    );
  }
  const row = (page: Page, workflowId: string) => page.locator(`#rows article[data-workflow-id="${workflowId}"]`);
  /** A page showing all of `calls`, once its live updates have merged at least once. */
  async function open(calls: Array<{ workflowId: string }>): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(inbox.url);
    await page.waitForFunction(() => Number((globalThis as any).document.documentElement.dataset.refreshes || 0) >= 1);
    for (const c of calls) await row(page, c.workflowId).waitFor();
    return page;
  }
  /** The workflow of the row at the top of the page, and of the one at the bottom. */
  async function topAndBottom(page: Page): Promise<[string, string]> {
    const ids = await page.locator('#rows article.request').evaluateAll((rows: any[]) => rows.map((r) => r.getAttribute('data-workflow-id') ?? ''));
    return [ids[0]!, ids[ids.length - 1]!];
  }
  /** Answer a request through the client (as another tab or the CLI would) and wait until `page` has dropped its row. */
  async function answeredElsewhere(page: Page, workflowId: string): Promise<void> {
    const [request] = await suite.durable.pendingDetails(workflowId);
    await suite.durable.accept(workflowId, request!.request.id, { name: 'Elsewhere' });
    await row(page, workflowId).waitFor({ state: 'detached' });
  }
  const focusedIn = (input: ReturnType<Page['locator']>) => input.evaluate((el) => el === (globalThis as any).document.activeElement);

  it('what a person types keeps its focus and text while refreshes drop and add rows, and the typed answer is submitted', async () => {
    const calls = await waiting(3);
    const page = await open(calls);
    try {
      const [top, bottom] = await topAndBottom(page);
      const input = row(page, top).locator('[name=name]');
      await input.click();
      await page.keyboard.type('Gra');
      // The list changes under the person: a row below leaves, a new one arrives (newest first: above).
      await answeredElsewhere(page, bottom);
      const [added] = await waiting(1);
      await row(page, added!.workflowId).waitFor();
      assert.equal(await focusedIn(input), true, 'the field the person was typing in lost its focus to a refresh');
      await page.keyboard.type('ce');
      assert.equal(await input.inputValue(), 'Grace');
      // Enter submits the form with its default button: Accept.
      await Promise.all([page.waitForURL(/answered=/), page.keyboard.press('Enter')]);
      assert.equal((await suite.durable.result(top)).output, 'hello Grace');
    } finally {
      await page.close();
    }
  });

  it('a press on Accept held down while a refresh drops another row is a click: the filled form is posted', async () => {
    const calls = await waiting(3);
    const page = await open(calls);
    try {
      const [top, bottom] = await topAndBottom(page);
      await row(page, top).locator('[name=name]').fill('Ada');
      // Told by the page, in order, before page.mouse.up() returns: the form's submit event, which the click causes.
      const submitted: string[] = [];
      await page.exposeBinding('formSubmitted', (_source, workflowId: string) => submitted.push(workflowId));
      await page.evaluate(() =>
        (globalThis as any).document.addEventListener('submit', (e: any) => (globalThis as any).formSubmitted(e.target.getAttribute('data-workflow-id')), true),
      );
      const box = await row(page, top).locator('button[value=accept]').boundingBox();
      assert.ok(box, 'the Accept button is shown');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      // A row below the pressed one leaves (nothing above it moves): the refresh lands between press and release.
      await answeredElsewhere(page, bottom);
      await Promise.all([page.waitForURL(/answered=/, { waitUntil: 'commit' }), page.mouse.up()]).catch((err: Error) => {
        throw new Error(`${err.message.split('\n')[0]}; submit events: ${JSON.stringify(submitted)}`);
      });
      assert.deepEqual(submitted, [top]);
      assert.equal((await suite.durable.result(top)).output, 'hello Ada');
    } finally {
      await page.close();
    }
  });

  it('a row that leaves the list while a person types into it stays, with what they typed and a note; its submit is told it no longer waits', async () => {
    const calls = await waiting(2);
    const page = await open(calls);
    const untouched = await open(calls);
    try {
      const [, bottom] = await topAndBottom(page);
      const input = row(page, bottom).locator('[name=name]');
      await input.click();
      await page.keyboard.type('Lin');
      await answeredElsewhere(untouched, bottom);
      await row(page, bottom).locator('.gone-note').waitFor();
      assert.equal(await input.inputValue(), 'Lin');
      assert.equal(await focusedIn(input), true, 'the field lost its focus');
      const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Enter')]);
      assert.equal(response.status(), 409);
      assert.match(await page.locator('.notice').innerText(), /no longer pending/);
      assert.equal((await suite.durable.result(bottom)).output, 'hello Elsewhere');
    } finally {
      await untouched.close();
      await page.close();
    }
  });
});
