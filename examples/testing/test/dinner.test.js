import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { accept, answerWith, createTestEnvironment, decline, nextPending, replayHistories, saveHistory } from 'durable-mcp/testing';
import { diner } from './diner.js';

const workflowsPath = fileURLToPath(new URL('../workflows.js', import.meta.url));
const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));
const start = (t, id, args = {}) =>
  t.client.workflow.start('bookDinner', { taskQueue: t.taskQueue, workflowId: `${id}-${Date.now()}`, args: [{ restaurant: 'Chez Temporal', ...args }] });

for (const era of ['legacy', 'modern']) {
  describe(`bookDinner with a ${era}-era MCP server`, () => {
    let t;
    let server;
    before(async () => {
      server = await diner(era);
      t = await createTestEnvironment({ servers: { diner: server }, workflowsPath });
    });
    after(() => t?.teardown());

    it('books the table when the person accepts', async () => {
      const handle = await start(t, `accept-${era}`);
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
      const handle = await start(t, `decline-${era}`);
      const { request } = await nextPending(handle);
      await t.durable.submit(handle.workflowId, { id: request.id, ...decline() });
      assert.equal(await handle.result(), 'not booked (decline)');
      assert.deepEqual(server.answers.at(-1).result, { action: 'decline' });
    });

    it('keeps the pending request across a worker restart, and asks once', async () => {
      const handle = await start(t, `restart-${era}`);
      const { request } = await nextPending(handle);
      const asked = server.answers.length;
      await t.restartWorker();
      await t.durable.answer(handle.workflowId, request.id, { name: 'Grace', guests: 4 });
      assert.equal(await handle.result(), 'table 7 at Chez Temporal booked for 4 under Grace');
      assert.equal(server.answers.length, asked + 1, 'one answer reached the server');
    });
  });

  describe(`bookDinner with a ${era}-era MCP server, time-skipped`, () => {
    it('an unanswered booking expires into cancel after a day, without waiting a day', async () => {
      const server = await diner(era);
      const t = await createTestEnvironment({ timeSkipping: true, servers: { diner: server }, workflowsPath });
      try {
        const handle = await start(t, `expiry-${era}`);
        assert.equal(await handle.result(), 'not booked (cancel)');
        assert.deepEqual(server.answers.map((a) => a.result), [{ action: 'cancel' }]);
      } finally {
        await t.teardown();
      }
    });
  });
}

describe('recorded histories', () => {
  it('replay with the current workflow code', async () => {
    const files = readdirSync(historiesDir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 2, 'the accept histories of both eras are committed');
    const outcomes = await replayHistories(workflowsPath, files.map((f) => ({ workflowId: f, history: JSON.parse(readFileSync(`${historiesDir}/${f}`, 'utf8')) })));
    assert.equal(outcomes.length, files.length);
  });
});
