/**
 * Approvals in the inbox, in headless Chromium (docs/approvals.md): 20 gated calls at once are 20 approvals in the
 * inbox, each showing the tool, its annotations and the arguments, answered from two tabs (one edits an argument, one
 * declines); each approved tool runs once, with the arguments as approved, and the declined one never runs. A padded
 * argument is shown whole (issue 40): the real value past character 1000 is on the page, and what is approved runs.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';
import { startWaitingCalls, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const SETUP_MS = 300_000;

describe('approvals in the inbox', () => {
  let inbox: InboxHandle;
  let browser: Browser;
  const dir = tempDir();
  const logPath = join(dir, 'fx.jsonl');
  after(async () => {
    await browser?.close();
    await inbox?.close();
  });
  const suite = suiteEnvironment({
    taskQueue: uniqueTaskQueue('inbox-approval'),
    searchAttributes: true,
    logPath,
    mcpConfig: {
      approval: 'destructive',
      mcpServers: { fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: logPath }, maxSessions: 4 } },
    },
  });
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, refreshMs: 300 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  const row = (page: Page, workflowId: string) => page.locator(`#rows article[data-workflow-id="${workflowId}"]`);
  const runs = () =>
    readFixtureLog(logPath)
      .filter((e) => e.event === 'side_effect' && e.tool === 'transfer')
      .map((e) => e.args as { to: string; amount: number });

  it('20 gated calls: 20 approvals in the inbox, answered from two tabs, each approved tool run once with its approved arguments', async () => {
    const prefix = `approve-${process.pid}-${Date.now()}`;
    const ids = await startWaitingCalls(
      suite.durable,
      Array.from({ length: 20 }, (_, i) => ({ server: 'fx', tool: 'transfer', arguments: { to: `p${i + 1}`, amount: 1 }, workflowId: `${prefix}-${i + 1}` })),
    );
    await Promise.all(ids.map((id) => waitForPending(suite.env.client.workflow.getHandle(id), 1, SETUP_MS)));
    assert.deepEqual(runs(), [], 'nothing ran before a person approved');
    const tabs = [await browser.newPage(), await browser.newPage()];
    try {
      for (const tab of tabs) {
        await tab.goto(inbox.url);
        for (const id of ids) await row(tab, id).waitFor({ timeout: SETUP_MS });
      }
      // What a person sees of an approval: the tool, its annotations (none: the worst case), the arguments, Approve/Decline.
      const first = row(tabs[0]!, ids[0]!);
      assert.match(await first.locator('.approval').innerText(), /Transfer money[\s\S]*none \(treated as the worst case[\s\S]*"to": "p1"/);
      assert.equal(await first.locator('button[value=accept]').innerText(), 'Approve');
      assert.equal(await first.locator('[name=amount]').inputValue(), '1', 'the form is prefilled with the proposed amount');

      // Tab 1 takes the first ten (declining the tenth), tab 2 the rest (editing the amount of p11), alternating.
      for (let i = 0; i < 10; i++) {
        for (const [tab, index] of [
          [tabs[0]!, i],
          [tabs[1]!, i + 10],
        ] as const) {
          const r = row(tab, ids[index]!);
          await r.waitFor();
          if (index === 10) await r.locator('[name=amount]').fill('2');
          const button = index === 9 ? 'decline' : 'accept';
          await Promise.all([tab.waitForURL(/answered=/), r.locator(`button[value=${button}]`).click()]);
        }
      }
      const results = await Promise.all(ids.map((id) => suite.durable.result(id)));
      assert.equal(results[9]!.isError, true);
      assert.equal(results[9]!.metadata?.approval, 'declined');
      assert.equal(results[10]!.output, 'sent 2 to p11');
      const ran = runs();
      assert.equal(ran.length, 19, 'every approved tool ran, the declined one did not');
      for (let i = 0; i < 20; i++) {
        const mine = ran.filter((a) => a.to === `p${i + 1}`);
        assert.deepEqual(mine, i === 9 ? [] : [{ to: `p${i + 1}`, amount: i === 10 ? 2 : 1 }], `p${i + 1}`);
      }
      // The history page: who approved, when, and the arguments the call ran with.
      const history = tabs[0]!;
      await history.goto(`${inbox.url.replace(/\/$/, '')}/history`);
      const edited = history.locator(`article.resolved[data-workflow-id="${ids[10]!}"]`);
      assert.match(await edited.innerText(), /accepted by [\s\S]*ran with the approved arguments \{"to":"p11","amount":2\}[\s\S]*sent 2 to p11/);
      assert.match(await history.locator(`article.resolved[data-workflow-id="${ids[9]!}"]`).innerText(), /declined by/);
    } finally {
      for (const tab of tabs) await tab.close();
    }
  });

  it('a padded argument is shown whole on the page, pretty and as the exact JSON; approving with the form runs exactly that', async () => {
    const to = `${'a'.repeat(1200)}mallory-offshore`;
    const args = { to, amount: 5 };
    const workflowId = `approve-padded-${process.pid}-${Date.now()}`;
    await suite.durable.startToolCall({ server: 'fx', tool: 'transfer', arguments: args, workflowId });
    await waitForPending(suite.env.client.workflow.getHandle(workflowId), 1, SETUP_MS);
    const tab = await browser.newPage();
    try {
      await tab.goto(inbox.url);
      const r = row(tab, workflowId);
      await r.waitFor({ timeout: SETUP_MS });
      // Pretty-printed, whole, and nothing of it clipped sideways (it wraps; the box scrolls down).
      const shown = r.locator('.approval-args');
      assert.equal(await shown.innerText(), JSON.stringify(args, null, 2));
      const box = await shown.evaluate((el: any) => ({
        clipped: el.scrollWidth > el.clientWidth,
        overflowY: (globalThis as any).getComputedStyle(el).overflowY as string,
      }));
      assert.deepEqual(box, { clipped: false, overflowY: 'auto' });
      // The exact JSON that runs, one click away.
      const exact = r.locator('.approval-json code');
      assert.equal(await exact.isVisible(), false);
      await r.locator('.approval-json summary').click();
      assert.equal(await exact.innerText(), JSON.stringify(args));
      assert.equal(await r.locator('[name=to]').inputValue(), to, "the form's field holds the whole value too");
      await Promise.all([tab.waitForURL(/answered=/), r.locator('button[value=accept]').click()]);
      const result = await suite.durable.result(workflowId);
      assert.equal(result.output, `sent 5 to ${to}`);
      assert.deepEqual(result.metadata?.approvedArguments, args, 'what was approved is what was shown');
      assert.deepEqual(
        runs().filter((a) => a.to === to),
        [args],
        'what ran is what was shown, once',
      );
      // The history page shows the arguments it ran with, whole.
      await tab.goto(`${inbox.url.replace(/\/$/, '')}/history`);
      const resolved = tab.locator(`article.resolved[data-workflow-id="${workflowId}"] .approved code`);
      assert.equal(await resolved.innerText(), JSON.stringify(args));
    } finally {
      await tab.close();
    }
  });
});
