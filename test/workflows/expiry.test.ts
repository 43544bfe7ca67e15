import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { receivedAnswers } from '../fixtures/paths.js';
import { testEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';
import { recordHistory } from '../helpers/history.js';

describe('expiry on the time-skipping server', () => {
  it('an unanswered request expires into cancel once expiresIn has elapsed, and a later answer is rejected', async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'expiry' });
    const { env, taskQueue, logPath } = t;
    const expiresIn = 2 * 60 * 60 * 1000; // two hours of workflow time, skipped
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `expiry-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { expiresIn, holdFor: 200 } }],
    });
    const [request] = await waitForPending(handle);
    const startedAt = await env.currentTimeMs();
    assert.ok(Math.abs(Date.parse(request.expiresAt!) - (startedAt + expiresIn)) < 60_000, 'expiresAt is workflow time + expiresIn');

    const result = await handle.result(); // the server skips time to the expiry timer
    assert.deepEqual(result, { output: 'cancelled', isError: false });
    await recordHistory(handle, 'expiry', env.address);
    assert.ok((await env.currentTimeMs()) - startedAt >= expiresIn - 1000, 'time was skipped past expiresIn');
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'cancel' }]);
    assert.deepEqual(await handle.query(pendingQuery), [], 'the expired request is no longer pending');
  });

  it('durations are Temporal Durations: expiresIn "4s" expires into cancel, "4 parsecs" is refused naming the field and the value', async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'expiry-duration' });
    const { env, taskQueue, logPath } = t;
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `expiry-4s-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { expiresIn: '4s', holdFor: '1 minute' }, toolTimeout: '1h', heartbeatTimeout: '30s' }],
    });
    const [request] = await waitForPending(handle);
    const startedAt = await env.currentTimeMs();
    assert.ok(Math.abs(Date.parse(request.expiresAt!) - (startedAt + 4000)) < 4000, `expiresAt is workflow time + 4 s: ${request.expiresAt}`);
    assert.deepEqual(await handle.result(), { output: 'cancelled', isError: false });
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'cancel' }]);

    for (const [input, field, shown] of [
      [{ elicitation: { expiresIn: '4 parsecs' } }, 'elicitation.expiresIn', '"4 parsecs"'],
      [{ elicitation: { holdFor: true } }, 'elicitation.holdFor', 'true'],
      [{ toolTimeout: '0s' }, 'toolTimeout', '"0s"'],
      [{ heartbeatTimeout: 'soon' }, 'heartbeatTimeout', '"soon"'],
    ] as const) {
      const bad = env.client.workflow.execute(mcpToolCall, {
        taskQueue,
        workflowId: `expiry-bad-${Math.random().toString(36).slice(2)}`,
        args: [{ server: 'fx', tool: 'ask_name', ...(input as object) }],
      });
      await assert.rejects(bad, (err: Error) => {
        const cause = (err as { cause?: { message?: string; type?: string } }).cause;
        assert.equal(cause?.type, 'InvalidInput');
        assert.match(
          cause?.message ?? '',
          new RegExp(
            `field "${field.replace('.', '\\.')}" must be a Temporal Duration: a number of milliseconds or a string like "4s".*, got ${shown.replace(/[."]/g, (c) => `\\${c}`)}`,
          ),
        );
        return true;
      });
    }
  });

  it('a request of a call released at once (holdFor 0) expires too', async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'expiry-hold0' });
    const { env, taskQueue, logPath } = t;
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `expiry-hold0-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { expiresIn: 60 * 60 * 1000, holdFor: 0 } }],
    });
    await waitForPending(handle);
    assert.deepEqual(await handle.result(), { output: 'cancelled', isError: false });
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'cancel' }]);
  });

  it('an answer after expiry is rejected: the request is gone and the call already ended in cancel', async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'expiry-late' });
    const { env, taskQueue, logPath } = t;
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `expiry-late-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_twice', elicitation: { expiresIn: 60 * 60 * 1000, holdFor: 200 } }],
    });
    const [first] = await waitForPending(handle);
    assert.equal((await handle.result()).output, 'cancelled at 1');
    await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { first: 'Ada' } }] }), /completed|not found/i);
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'cancel' }], 'the server saw cancel once, never the late answer');
  });
});
