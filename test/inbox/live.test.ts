/**
 * The inbox with many waiting requests, in headless Chromium: the first page renders from visibility, a filter narrows
 * it, a new request appears in every open tab without a reload (server-sent events from the inbox's one refresh loop),
 * an answered one leaves every tab, and the history shows who answered (a trusted proxy header) and the call's result.
 * The checks are scripts/inbox-browser-checks.ts. N is DURABLE_MCP_TEST_INBOX_N (default 60); the bench's B7 runs the same
 * checks at 1,000 and 10,000.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { checkLines, inboxBrowserChecks } from '../../scripts/inbox-browser-checks.js';
import { eventually, startWaitingCalls, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';

const N = Number(process.env.DURABLE_MCP_TEST_INBOX_N) || 60;

describe(`the inbox at ${N} waiting requests, live in every tab`, () => {
  let inbox: InboxHandle;
  const taskQueue = uniqueTaskQueue('inbox-live');
  const dir = tempDir();
  const prefix = `live-${process.pid}`;
  after(async () => {
    await inbox?.close();
  });
  const suite = suiteEnvironment({
    taskQueue,
    searchAttributes: true,
    logPath: join(dir, 'fx.jsonl'),
    extraServers: { fy: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fy.jsonl') } } },
  });
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, userHeader: 'X-Forwarded-User', refreshMs: 500 });
  });

  it('first page, a filter, a new request in every tab, an answered one leaving every tab, and the history with who answered', async () => {
    // N calls wait (released at once: nothing held), 3 of them on server fy.
    await startWaitingCalls(
      suite.durable,
      Array.from({ length: N }, (_, i) => ({ server: i < N - 3 ? 'fx' : 'fy', tool: 'ask_name', workflowId: `${prefix}-${i}` })),
    );
    await eventually(
      async () => (await suite.env.client.workflow.count(`TaskQueue = '${taskQueue}' AND DurableMcpAwaitingInput = true`)).count >= N,
      `${N} awaiting input`,
      300_000,
      500,
    );
    const checks = await inboxBrowserChecks({
      inboxUrl: inbox.url,
      dmc: suite.durable,
      waiting: N,
      filterServer: 'fy',
      filtered: 3,
      tool: 'ask_name',
      workflowId: `${prefix}-fy-new`,
      userHeader: 'X-Forwarded-User',
      person: 'grace@example.org',
    });
    assert.ok(
      checks.every((c) => c.ok === true),
      checkLines(checks).join('\n'),
    );
  });
});
