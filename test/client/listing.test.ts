/**
 * The listing from visibility (src/client/listing.ts) against a real dev server with durable-mcp's search attributes,
 * a real worker and the stdio fixture server: pages by cursor without a gap or a repeat, filters (server, tool, kind,
 * text, workflow type), no worker asked for a workflow with the memo, who answered and when, and a workflow without the
 * memo (as recorded before it) still listed and answered.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DurableMcpClient, ListOptionError, type ListedRequest } from '../../src/client/index.js';
import { LISTING_MEMO_KEY } from '../../src/workflows/visibility.js';
import { eventually, fixtureConfig, startWaitingCalls, startWorker, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';
import { fixtureServerPath } from '../fixtures/paths.js';

const here = dirname(fileURLToPath(import.meta.url));

describe('the listing of pending requests from visibility', () => {
  const taskQueue = uniqueTaskQueue('listing');
  const dir = tempDir();
  const prefix = `listing-${process.pid}-${Date.now()}`;
  const suite = suiteEnvironment({
    taskQueue,
    searchAttributes: true,
    logPath: join(dir, 'fx.jsonl'),
    extraServers: { fy: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fy.jsonl') } } },
  });

  /** Every page of a listing (limit `limit`), following nextCursor. */
  async function allPages(options: Parameters<DurableMcpClient['listPending']>[0]): Promise<{ rows: ListedRequest[]; pages: number; queried: number }> {
    const rows: ListedRequest[] = [];
    let pages = 0;
    let queried = 0;
    let cursor: string | undefined;
    do {
      const page = await suite.durable.listPending({ ...options, ...(cursor ? { cursor } : {}) });
      rows.push(...page.rows.filter((r) => r.workflowId.startsWith(prefix)));
      queried += page.queried;
      pages++;
      cursor = page.nextCursor;
    } while (cursor);
    return { rows, pages, queried };
  }

  it('lists every waiting request from the memo in pages, filters by server, tool, kind, text and type, and asks no worker', async () => {
    const call = (server: string, tool: string, i: number, args?: Record<string, unknown>) => ({
      server,
      tool,
      workflowId: `${prefix}-${server}-${tool}-${i}`,
      ...(args ? { arguments: args } : {}),
    });
    const started = await startWaitingCalls(suite.durable, [
      ...Array.from({ length: 8 }, (_, i) => call('fx', 'ask_name', i, { who: `guest ${i}` })),
      ...Array.from({ length: 4 }, (_, i) => call('fy', 'ask_form', i)),
      ...Array.from({ length: 3 }, (_, i) => call('fx', 'ask_url', i)),
    ]);
    const total = started.length;
    await eventually(async () => (await allPages({ limit: 1000 })).rows.length === total, `all ${total} requests listed`);

    const paged = await allPages({ limit: 4 });
    assert.equal(paged.rows.length, total);
    assert.equal(new Set(paged.rows.map((r) => r.workflowId)).size, total, 'no workflow twice, none missing');
    assert.ok(paged.pages >= 4, `pages of 4: ${paged.pages}`);
    assert.equal(paged.queried, 0, 'no worker was asked: every row came from a memo');

    const name = paged.rows.find((r) => r.workflowId === `${prefix}-fx-ask_name-3`)!;
    assert.equal(name.request.prompt, 'What is your name?');
    assert.equal(name.context.server, 'fx');
    assert.equal(name.context.tool, 'ask_name');
    assert.equal(name.context.arguments, '{"who":"guest 3"}');
    assert.ok(Date.parse(name.context.askedAt!) <= Date.parse(name.request.expiresAt!), 'asked before it expires');

    const fy = await allPages({ filter: { server: 'fy' } });
    assert.deepEqual(new Set(fy.rows.map((r) => r.context.server)), new Set(['fy']));
    assert.equal(fy.rows.length, 4);
    const urls = await allPages({ filter: { kind: 'authorization' } });
    assert.equal(urls.rows.length, 3);
    assert.ok(urls.rows.every((r) => r.request.kind === 'authorization' && r.context.host !== undefined));
    const forms = await allPages({ filter: { tool: 'ask_form' } });
    assert.equal(forms.rows.length, 4);
    const text = await allPages({ filter: { text: 'YOUR NAME' }, limit: 3 });
    assert.equal(text.rows.length, 8, 'text in the prompt, case-insensitive, across pages');
    assert.equal((await allPages({ filter: { workflowType: 'mcpPipeline' } })).rows.length, 0);
    assert.equal((await allPages({ filter: { workflowType: 'mcpToolCall', server: 'fx', kind: 'input' } })).rows.length, 8);

    await assert.rejects(
      suite.durable.listPending({ limit: 0 }),
      (err: unknown) => err instanceof ListOptionError && /limit must be a whole number from 1/.test(err.message),
    );
    await assert.rejects(suite.durable.listPending({ cursor: 'nonsense' }), ListOptionError);

    // The memo is what visibility returns with each row.
    const raw = await suite.env.client.workflowService.listWorkflowExecutions({ namespace: 'default', query: `WorkflowId = '${prefix}-fy-ask_form-0'` });
    assert.ok(raw.executions?.[0]?.memo?.fields?.[LISTING_MEMO_KEY], 'the listing memo is on the row');

    // A request answered between two pages does not make the next one skip a row: the cursor names the run it goes on from.
    const names = new Set(started.filter((id) => id.includes('-ask_name-')));
    const first = await suite.durable.listPending({ filter: { tool: 'ask_name' }, limit: 2 });
    assert.ok(first.nextCursor, 'a next page');
    const gone = first.rows[0]!.workflowId;
    await suite.env.client.workflow.getHandle(gone).terminate('answered meanwhile');
    await eventually(async () => (await allPages({ limit: 1000 })).rows.every((r) => r.workflowId !== gone), 'the answered one gone from visibility');
    const seen = first.rows.map((r) => r.workflowId);
    let cursor: string | undefined = first.nextCursor;
    while (cursor) {
      const page = await suite.durable.listPending({ filter: { tool: 'ask_name' }, limit: 2, cursor });
      seen.push(...page.rows.map((r) => r.workflowId));
      cursor = page.nextCursor;
    }
    assert.deepEqual(new Set(seen), names, 'every ask_name request seen once over the pages, none skipped');
    assert.equal(seen.length, names.size, 'none twice');

    for (const id of started) if (id !== gone) await suite.env.client.workflow.getHandle(id).terminate('test done');
  });

  it('records who answered and when, beside the answer: a named person through the update, "signal" for a bare signal', async () => {
    const a = await suite.durable.startToolCall({ server: 'fx', tool: 'ask_name', workflowId: `${prefix}-who-a`, elicitation: { holdFor: 1 } });
    const b = await suite.durable.startToolCall({ server: 'fx', tool: 'ask_name', workflowId: `${prefix}-who-b`, elicitation: { holdFor: 1 } });
    const pendingOf = (id: string) => eventually(async () => (await suite.durable.pendingDetails(id))[0]?.request, `${id} pending`);
    const ra = await pendingOf(a.workflowId);
    const rb = await pendingOf(b.workflowId);
    const before = Date.now();
    await suite.durable.submit(a.workflowId, { id: ra.id, ok: true, data: { name: 'Ada' } }, { by: 'alice@example.org' });
    await suite.durable.signalAnswer(b.workflowId, { id: rb.id, ok: false, reason: 'declined' });
    assert.match((await suite.durable.result(a.workflowId)).output, /Ada/);
    await suite.durable.result(b.workflowId);
    const rows = await eventually(async () => {
      const { rows } = await suite.durable.listResolved({ since: new Date(before - 60_000) });
      const mine = rows.filter((r) => r.workflowId === a.workflowId || r.workflowId === b.workflowId);
      return mine.length === 2 && mine.every((r) => r.status === 'COMPLETED') ? mine : undefined;
    }, 'both resolutions listed');
    const ofA = rows.find((r) => r.workflowId === a.workflowId)!;
    const ofB = rows.find((r) => r.workflowId === b.workflowId)!;
    assert.equal(ofA.by, 'alice@example.org');
    assert.equal(ofA.outcome, 'accepted');
    assert.equal(ofB.by, 'signal');
    assert.equal(ofB.outcome, 'declined');
    assert.ok(Date.parse(ofA.at) >= before - 1000 && Date.parse(ofA.at) <= Date.now());
    assert.equal(ofA.prompt, 'What is your name?');
  });

  it('a workflow without the listing memo (as recorded before it) is still listed, by asking it, and answered', async () => {
    const memolessQueue = uniqueTaskQueue('listing-memoless');
    const memoless = await startWorker(suite.env, {
      taskQueue: memolessQueue,
      mcpConfig: fixtureConfig(join(dir, 'memoless.jsonl')),
      workflowsPath: join(here, '..', 'fixtures', 'memoless-workflows.js'),
    });
    const memolessRun = memoless.run();
    try {
      const handle = await suite.env.client.workflow.start('askWithoutMemo', {
        taskQueue: memolessQueue,
        workflowId: `${prefix}-memoless`,
        args: ['Old question?'],
      });
      const row = await eventually(
        async () => (await allPages({ limit: 1000 })).rows.find((r) => r.workflowId === handle.workflowId),
        'the old workflow listed',
      );
      assert.equal(row.queried, true, 'listed from its pendingDetails query (it has no memo)');
      assert.equal(row.request.prompt, 'Old question?');
      assert.equal(row.context.server, 'old');
      const grouped = await suite.durable.listAwaitingInput();
      assert.equal(grouped.find((w) => w.workflowId === handle.workflowId)?.pending[0]?.request.id, 'memoless.1');
      await suite.durable.submit(handle.workflowId, { id: 'memoless.1', ok: true, data: { ok: true } }, { by: 'someone' });
      assert.deepEqual(await handle.result(), { id: 'memoless.1', ok: true, data: { ok: true } }, 'the answer arrived byte-exact, "by" beside it');
    } finally {
      memoless.shutdown();
      await memolessRun;
    }
  });
});
