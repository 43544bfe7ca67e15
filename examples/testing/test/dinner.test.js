import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { accept, answerWith, createTestEnvironment, decline, nextPending, replayHistories, saveHistory } from 'durable-mcp/testing';
import { diner } from '../diner.js';

const workflowsPath = fileURLToPath(new URL('../workflows.js', import.meta.url));
const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));
const eras = ['legacy', 'modern'];
const start = (t, era, id) =>
  t.client.workflow.start('bookDinner', {
    taskQueue: t.taskQueue,
    workflowId: `${id}-${era}-${Date.now()}`,
    args: [{ restaurant: 'Chez Temporal', server: `diner_${era}` }],
  });

// One environment for both eras: a scripted server of each era, `diner_legacy` and `diner_modern`.
let t;
const servers = {};
before(async () => {
  for (const era of eras) servers[era] = await diner(era);
  t = await createTestEnvironment({ servers: { diner_legacy: servers.legacy, diner_modern: servers.modern }, workflowsPath });
});
after(() => t?.teardown());

for (const era of eras) {
  describe(`bookDinner with a ${era}-era MCP server`, () => {
    it('books the table when the person accepts', async () => {
      const server = servers[era];
      const handle = await start(t, era, 'accept');
      const answerer = answerWith(handle, (request) => {
        assert.equal(request.prompt, 'Who is coming to table 7 at Chez Temporal?');
        return accept({ name: 'Ada', guests: 2 });
      });
      assert.equal(await handle.result(), 'table 7 at Chez Temporal booked for 2 under Ada');
      await answerer.stop();
      assert.equal(answerer.answered.length, 1);
      if (process.env.RECORD_HISTORIES === '1') await saveHistory(handle, `${historiesDir}/accept-${era}.json`);
    });

    it('does not book when the person declines', async () => {
      const server = servers[era];
      const handle = await start(t, era, 'decline');
      const { request } = await nextPending(handle);
      await t.durable.submit(handle.workflowId, { id: request.id, ...decline() });
      assert.equal(await handle.result(), 'not booked (decline)');
      assert.deepEqual(server.answers.at(-1).result, { action: 'decline' });
    });

    it('keeps the pending request across a worker restart, and asks once', async () => {
      const server = servers[era];
      const handle = await start(t, era, 'restart');
      const { request } = await nextPending(handle);
      const asked = server.answers.length;
      await t.restartWorker();
      await t.durable.accept(handle.workflowId, request.id, { name: 'Grace', guests: 4 });
      assert.equal(await handle.result(), 'table 7 at Chez Temporal booked for 4 under Grace');
      assert.equal(server.answers.length, asked + 1, 'one answer reached the server');
    });
  });
}

describe('bookDinner, time-skipped', () => {
  it('an unanswered booking expires into cancel after a day, without waiting a day, in both eras', async () => {
    const skipping = {};
    for (const era of eras) skipping[era] = await diner(era);
    const ts = await createTestEnvironment({ timeSkipping: true, servers: { diner_legacy: skipping.legacy, diner_modern: skipping.modern }, workflowsPath });
    try {
      for (const era of eras) {
        const handle = await start(ts, era, 'expiry');
        assert.equal(await handle.result(), 'not booked (cancel)');
        assert.deepEqual(
          skipping[era].answers.map((a) => a.result),
          [{ action: 'cancel' }],
        );
      }
    } finally {
      await ts.teardown();
    }
  });
});

describe('recorded histories', () => {
  it('replay with the current workflow code', async () => {
    const files = readdirSync(historiesDir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 2, 'the accept histories of both eras are committed');
    const outcomes = await replayHistories(
      workflowsPath,
      files.map((f) => ({ workflowId: f, history: JSON.parse(readFileSync(`${historiesDir}/${f}`, 'utf8')) })),
    );
    assert.equal(outcomes.length, files.length);
  });
});
