/**
 * Issue 41 items 1 and 2, with a server of our own that speaks both eras (test/fixtures/shapes-server.ts):
 * - no silent result: each malformed `tools/call` shape, in either era, fails at once as a ProtocolViolation naming the
 *   server, the tool and the field, where it used to become a successful call with empty output; a round sent without
 *   `resultType` in the legacy era (as the Go SDK 1.8 sends a tool's second round to an older client) is read as the
 *   round it is, and the person is asked;
 * - a refusal to ask the old way is recognised by what happened (a first-round JSON-RPC error in the 2026-07-28 era,
 *   from a server that offers older versions), in words of the server's own: the tool runs once more in the legacy era
 *   in the same attempt, asks there, and is remembered; a tool that fails the same way in both eras runs twice per
 *   attempt, and its error names the repeated failure and the attempts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const shapesServer = fileURLToPath(new URL('../fixtures/shapes-server.js', import.meta.url));
const dir = tempDir();
const logs = { shapes: join(dir, 'auto.jsonl'), shapes_legacy: join(dir, 'legacy.jsonl') };
const extraServers = {
  shapes: { command: [process.execPath, shapesServer], env: { FIXTURE_LOG: logs.shapes } },
  shapes_legacy: { command: [process.execPath, shapesServer], env: { FIXTURE_LOG: logs.shapes_legacy }, era: 'legacy' },
};

describe('tools/call results of every shape, in either era: the real answer or a named protocol failure', () => {
  const suite = suiteEnvironment({ name: 'result-shapes', extraServers });
  const start = (server: string, tool: string, maxAttempts?: number) =>
    suite.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `shapes-${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server, tool, ...(maxAttempts !== undefined ? { maxAttempts } : {}) }],
    });
  const runs = (server: keyof typeof logs, tool: string) => readFixtureLog(logs[server]).filter((e) => e.event === 'run' && e.tool === tool);

  const malformed = [
    { tool: 'empty_requests', field: 'inputRequests' },
    { tool: 'array_requests', field: 'inputRequests' },
    { tool: 'both', field: 'inputRequests' },
    // A state and nothing else: no round (no requests) and no result (no content); either name is the fault.
    { tool: 'state_only', field: '(requestState|content)' },
    { tool: 'nothing', field: 'content' },
  ];
  for (const server of ['shapes', 'shapes_legacy'] as const) {
    for (const { tool, field } of malformed) {
      it(
        `${server} (${server === 'shapes' ? '2026-07-28' : '2025-11-25'}): ${tool} fails at once as a ProtocolViolation naming the server, the tool and the field`,
        { timeout: 60_000 },
        async () => {
          const handle = await start(server, tool);
          await assert.rejects(handle.result(), (err: any) => {
            const app = err.cause?.cause;
            assert.equal(app?.type, 'ProtocolViolation', String(app?.message));
            assert.equal(app?.nonRetryable, true);
            assert.match(app.message, new RegExp(`server "${server}": tool "${tool}"`));
            assert.match(app.message, new RegExp(`field "${field}"`));
            return true;
          });
          assert.equal(runs(server, tool).length, 1, 'the tool ran once: nothing is retried');
        },
      );
    }
  }

  it('an empty content list is an answer: a success with empty output (it is what the tool said)', async () => {
    const handle = await start('shapes_legacy', 'empty_content');
    assert.deepEqual(await handle.result(), { output: '', isError: false });
  });

  it('2026-07-28: a round without resultType is read as the round it is: the person is asked, the answer reaches the tool once', async () => {
    const handle = await start('shapes', 'untyped_round');
    const [request] = await waitForPending(handle);
    assert.equal(request.prompt, 'How many nights? (shapes)');
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { nights: 4 } });
    assert.deepEqual(await handle.result(), { output: 'nights: 4', isError: false });
    const received = readFixtureLog(logs.shapes).filter((e) => e.event === 'received' && e.tool === 'untyped_round');
    assert.deepEqual(
      received.map((e) => e.content),
      [{ nights: 4 }],
      'the answer reached the tool once',
    );
    assert.deepEqual(
      runs('shapes', 'untyped_round').map((e) => e.requestState),
      [null, 's1'],
      'the next call carried the round state',
    );
  });

  it('2025-11-25: the same round (as the Go SDK 1.8 sends a second round to an older client) is a ProtocolViolation naming inputRequests, never an empty success', async () => {
    const handle = await start('shapes_legacy', 'untyped_round');
    await assert.rejects(handle.result(), (err: any) => {
      const app = err.cause?.cause;
      assert.equal(app?.type, 'ProtocolViolation');
      assert.match(app.message, /server "shapes_legacy": tool "untyped_round" .*field "inputRequests"/);
      return true;
    });
    assert.equal(runs('shapes_legacy', 'untyped_round').length, 1);
  });

  it('a refusal in words of its own: the tool runs once more in the legacy era, asks there, and is remembered', async () => {
    const handle = await start('shapes', 'own_words');
    const [request] = await waitForPending(handle);
    assert.equal(request.prompt, 'What is your name? (shapes, own words)');
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
    assert.deepEqual(await handle.result(), { output: 'Hi Ada', isError: false });
    assert.deepEqual(
      runs('shapes', 'own_words').map((e) => e.era),
      ['modern', 'legacy'],
      'twice before the person was asked: refused in 2026-07-28, then asking in 2025-11-25',
    );
    assert.equal(suite.worker.pool.asksTheOldWay('shapes', 'own_words'), true);
    const { events } = await handle.fetchHistory();
    const attempts = events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.deepEqual(attempts, [1], 'one activity attempt');

    const again = await start('shapes', 'own_words');
    const [second] = await waitForPending(again);
    await again.signal(answerSignal, { id: second.id, ok: true, data: { name: 'Grace' } });
    assert.deepEqual(await again.result(), { output: 'Hi Grace', isError: false });
    assert.deepEqual(
      runs('shapes', 'own_words').map((e) => e.era),
      ['modern', 'legacy', 'legacy'],
      'the next call goes to the legacy era at once',
    );
    assert.equal(suite.worker.pool.asksTheOldWay('shapes', 'untyped_round'), false, "the server's other tools keep their era");
  });

  it('a tool that fails the same way in both eras: twice per attempt, never more, and the error names the repeated failure', async () => {
    const handle = await start('shapes', 'always_fails', 2);
    await assert.rejects(handle.result(), (err: any) => {
      const app = err.cause?.cause;
      assert.equal(app?.type, 'ToolCallFailed');
      assert.match(app.message, /storage offline/);
      assert.match(app.message, /each of the call's 2 attempts, its maxAttempts/);
      return true;
    });
    assert.deepEqual(
      runs('shapes', 'always_fails').map((e) => e.era),
      ['modern', 'legacy', 'modern', 'legacy'],
      'each attempt: the 2026-07-28 run, then one in the legacy era',
    );
    assert.equal(suite.worker.pool.asksTheOldWay('shapes', 'always_fails'), false, 'never remembered: it never asked');
  });
});
