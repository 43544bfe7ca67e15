/**
 * The inbox's browser checks at N waiting requests, in headless Chromium (test/inbox/live.test.ts runs them at 60, B7 at
 * 1,000 and 10,000): the first page renders a page of rows, a filter narrows it, a new request appears in every open tab
 * without a reload, the browser's own validation stops an incomplete submit, an answered request leaves every tab, and
 * the history shows who answered it (a trusted proxy header) and the call's result. The checks run in order, each
 * reported with its outcome; once one fails, the rest are not run (each needs what the one before it did).
 *
 * What they expect of the namespace: `waiting` requests wait, exactly `filtered` of them on `filterServer`; a new call
 * of `tool` on `filterServer` asks for a required `name` and its result holds the name (ask_name of either fixture
 * server); the inbox trusts `userHeader` (its `userHeader` option) and lists newest first (visibility's order on SQL
 * stores: the dev server, PostgreSQL), so the new request is on every first page.
 */
import { chromium, type Page } from 'playwright-core';
import type { DurableMcpClient } from '../src/client/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.js';

export interface BrowserCheck {
  name: string;
  /** undefined: not run, because a check before it failed. */
  ok: boolean | undefined;
  /** What was seen (on success) or what went wrong. */
  detail: string;
  ms: number;
}

export interface InboxBrowserOptions {
  inboxUrl: string;
  dmc: DurableMcpClient;
  /** Requests waiting: the first page shows min(waiting, 50) of them, and a next-page link past 50. */
  waiting: number;
  /** A server with exactly `filtered` waiting requests: the filter, and the server of the new request. */
  filterServer: string;
  filtered: number;
  tool: string;
  /** The workflow id of the new request's call. */
  workflowId: string;
  /** The header the inbox trusts to name the person, and the person it names. */
  userHeader: string;
  person: string;
  /** How long a tab may take to show or drop a row (default 30 s); the history gets twice as long. */
  timeoutMs?: number;
}

const PAGE_ROWS = 50;
const NAME = 'Grace';

/** Run every check (see the file's comment); never throws for a failed check, only reports it. */
export async function inboxBrowserChecks(o: InboxBrowserOptions): Promise<BrowserCheck[]> {
  const timeout = o.timeoutMs ?? 30_000;
  const checks: BrowserCheck[] = [];
  let failed = false;
  const check = async (name: string, fn: () => Promise<string>) => {
    if (failed) {
      checks.push({ name, ok: undefined, detail: 'not run: a check before it failed', ms: 0 });
      return;
    }
    const t = performance.now();
    try {
      const detail = await fn();
      checks.push({ name, ok: true, detail, ms: Math.round(performance.now() - t) });
    } catch (err) {
      failed = true;
      checks.push({ name, ok: false, detail: (err as Error).message.split('\n')[0]!, ms: Math.round(performance.now() - t) });
    }
  };
  const expect = (cond: boolean, what: string) => {
    if (!cond) throw new Error(what);
  };

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    // As a reverse proxy that signs people in would: it names the person in a header the inbox is told to trust.
    const context = await browser.newContext({ extraHTTPHeaders: { [o.userHeader]: o.person } });
    const rowsOf = (page: Page, workflowId: string) => page.locator(`#rows article[data-workflow-id="${workflowId}"]`);
    const tabs: Page[] = [];
    const filteredUrl = `${o.inboxUrl.replace(/\/$/, '')}/?server=${encodeURIComponent(o.filterServer)}`;

    await check('the first page renders a page of rows', async () => {
      for (let i = 0; i < 3; i++) tabs.push(await context.newPage());
      await tabs[0]!.goto(o.inboxUrl);
      await tabs[1]!.goto(o.inboxUrl);
      const shown = await tabs[0]!.locator('#rows article.request').count();
      const next = await tabs[0]!.locator('a[rel=next]').count();
      expect(shown === Math.min(o.waiting, PAGE_ROWS), `${shown} rows on the first page, expected ${Math.min(o.waiting, PAGE_ROWS)}`);
      expect(next === (o.waiting > PAGE_ROWS ? 1 : 0), `${next} next-page links with ${o.waiting} waiting`);
      return `${shown} rows${next ? ' and a next-page link' : ''}`;
    });
    await check(`a filter (server=${o.filterServer}) narrows it`, async () => {
      await tabs[2]!.goto(filteredUrl);
      const shown = await tabs[2]!.locator('#rows article.request').count();
      const servers = [...new Set(await tabs[2]!.locator('#rows .server').allInnerTexts())];
      expect(shown === o.filtered, `${shown} rows, expected ${o.filtered}`);
      expect(servers.length === 1 && servers[0] === o.filterServer, `servers shown: ${servers.join(', ')}`);
      return `${shown} rows, all of server ${o.filterServer}`;
    });

    let requestId = '';
    const form = (tab: Page) => tab.locator(`form[data-workflow-id="${o.workflowId}"][data-request-id="${requestId}"]`);
    await check('a new request appears in every open tab without a reload', async () => {
      for (const tab of tabs)
        await tab.waitForFunction(() => Number((globalThis as any).document.documentElement.dataset.refreshes || 0) >= 1, undefined, { timeout });
      await o.dmc.startToolCall({ server: o.filterServer, tool: o.tool, workflowId: o.workflowId, elicitation: { holdFor: 1 } });
      const t = performance.now();
      for (const tab of tabs) await rowsOf(tab, o.workflowId).waitFor({ timeout });
      const ms = Math.round(performance.now() - t);
      requestId = (await o.dmc.pendingDetails(o.workflowId))[0]!.request.id;
      return `in all ${tabs.length} tabs (2 unfiltered, 1 filtered) ${ms} ms after its start`;
    });
    await check("the browser's own validation stops a submit without the required field", async () => {
      let posts = 0;
      const count = (r: { method(): string }) => {
        if (r.method() === 'POST') posts++;
      };
      tabs[0]!.on('request', count);
      await form(tabs[0]!).locator('button[value=accept]').click();
      const invalid = await form(tabs[0]!).locator('[name=name]:invalid').count();
      tabs[0]!.off('request', count);
      expect(invalid === 1, 'the empty name field is not :invalid');
      expect(posts === 0, `${posts} POST(s) sent`);
      const limits = await form(tabs[0]!).locator('.limits').innerText();
      expect(/required/.test(limits), `the field's limits say ${JSON.stringify(limits)}, not "required"`);
      return 'no post sent; the field says "required" before anyone types';
    });
    await check('an answered request leaves every tab', async () => {
      await form(tabs[0]!).locator('[name=name]').fill(NAME);
      // A live refresh that took the field out of the page while it was being filled would leave it empty (the submit
      // below would then be stopped by the browser's validation, and no answer sent): say so, rather than time out.
      const typed = await form(tabs[0]!).locator('[name=name]').inputValue();
      expect(typed === NAME, `the name field holds ${JSON.stringify(typed)} after filling in ${JSON.stringify(NAME)}`);
      await Promise.all([tabs[0]!.waitForURL(/answered=/, { timeout }), form(tabs[0]!).locator('button[value=accept]').click()]);
      expect((await rowsOf(tabs[0]!, o.workflowId).count()) === 0, 'still shown in the tab that answered, after its redirect');
      const t = performance.now();
      for (const tab of tabs.slice(1)) await rowsOf(tab, o.workflowId).waitFor({ state: 'detached', timeout });
      const ms = Math.round(performance.now() - t);
      const output = (await o.dmc.result(o.workflowId)).output;
      expect(output.includes(NAME), `the call's result ${JSON.stringify(output)} does not hold the answer`);
      return `gone from the answering tab at its redirect and from the other ${tabs.length - 1} within ${ms} ms`;
    });
    await check("the history shows who answered and the call's result", async () => {
      const history = await context.newPage();
      tabs.push(history);
      const entry = history.locator(`#history article[data-workflow-id="${o.workflowId}"]`);
      const until = Date.now() + 2 * timeout;
      for (;;) {
        await history.goto(new URL('/history', o.inboxUrl).href);
        if ((await entry.locator('.result').count()) === 1) break;
        expect(Date.now() < until, `no entry with its result after ${(2 * timeout) / 1000} s`);
        await new Promise((r) => setTimeout(r, 500));
      }
      const by = await entry.locator('.by').innerText();
      const outcome = await entry.locator('.outcome').innerText();
      const result = await entry.locator('.result').innerText();
      expect(by === o.person, `answered by ${JSON.stringify(by)}, expected ${JSON.stringify(o.person)}`);
      expect(outcome === 'accepted', `outcome ${JSON.stringify(outcome)}`);
      expect(result.includes(NAME), `result ${JSON.stringify(result)}`);
      return `${outcome} by ${by}; result ${JSON.stringify(result.trim().slice(0, 60))}`;
    });
    for (const tab of tabs) await tab.close();
    await context.close();
  } finally {
    await browser.close();
  }
  return checks;
}

/** One line per check: "ok   the first page … (812 ms): 50 rows …". */
export function checkLines(checks: BrowserCheck[]): string[] {
  return checks.map((c) => `${c.ok === true ? 'ok    ' : c.ok === false ? 'FAILED' : 'skip  '} ${c.name} (${c.ms} ms): ${c.detail}`);
}
