/**
 * A modern-era (MRTR) call waiting in a round while more updates arrive than one run handles before `mcpToolCall`
 * continues as new (TOOL_CALL_MAX_UPDATES). The round (its number, requestState, request ids) is carried with the
 * host's state and the next run resumes the call at that round: the request stays pending and answerable, and the
 * server sees exactly two rounds (the second with the answer), never round 1 again.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { TOOL_CALL_MAX_UPDATES } from '../../src/workflows/mcp-tool-call.js';
import { pendingQuery, submitAnswerUpdate, waitForPendingUpdate } from '../../src/workflows/messages.js';
import { modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { continueAsNewInputs } from '../helpers/history.js';
import { tempDir, testEnvironment } from '../helpers/temporal.js';

describe('a modern-era round watched past the updates that continue a run as new', () => {
  it(`${TOOL_CALL_MAX_UPDATES + 1} waitForPending updates during a round: continued as new at the round, still answerable, two rounds at the server`, async () => {
    const logPath = join(tempDir(), 'modern.jsonl');
    await using t = await testEnvironment({
      name: 'long-wait-mrtr',
      extraServers: { mfx: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: logPath } } },
    });
    const { env, taskQueue } = t;
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `long-wait-mrtr-${Date.now()}`,
      args: [{ server: 'mfx', tool: 'ask_name' }],
    });
    let id: string | undefined;
    while (!id) {
      const [first] = await handle.executeUpdate(waitForPendingUpdate, { args: [{ timeoutMs: 1000 }] });
      id = first?.id;
    }
    // Each returns at once (nothing seen yet), but counts as an update the run handled.
    for (let i = 0; i < TOOL_CALL_MAX_UPDATES + 1; i++) {
      const pending = await handle.executeUpdate(waitForPendingUpdate, { args: [{ seen: [] }] });
      assert.deepEqual(
        pending.map((r) => r.id),
        [id],
      );
    }
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [id],
      "the round's request is still pending",
    );
    const carried = await continueAsNewInputs(handle);
    assert.ok(carried.length >= 1, `continued as new at least once (did ${carried.length})`);
    for (const c of carried) {
      assert.equal(c.input.continued.waitingFor, id, 'each run carried the waiting call');
      const rounds = c.input.continued.host.rounds as Array<{ callId: string; round: number; requests: Array<{ id: string }> }>;
      assert.deepEqual(
        rounds.map((r) => [r.callId, r.round, r.requests.map((q) => q.id)]),
        [[c.input.continued.callId, 1, [id]]],
        'and the round it waits in',
      );
    }
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id, ok: true, data: { name: 'Ada' } }] });
    assert.equal((await handle.result()).output, 'Hello Ada');
    const rounds = readFixtureLog(logPath).filter((e) => e.event === 'tool' && e.tool === 'ask_name');
    assert.equal(rounds.length, 2, 'two rounds reached the server');
    assert.equal(rounds[0].inputResponses, null, 'round 1 carried no answers');
    assert.deepEqual(rounds[1].inputResponses, { name: { action: 'accept', content: { name: 'Ada' } } }, 'round 2 carried the answer');
  });
});
