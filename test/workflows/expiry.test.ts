import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall, type McpToolCallInput } from '../../src/workflows/index.js';
import { pendingDetailsQuery, pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { receivedAnswers } from '../fixtures/paths.js';
import { eventually, testEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';
import { recordHistory } from '../helpers/history.js';

/** A time-skipping environment of its own and a call to the fixture server `fx` started in it (`handle`). */
async function expiringCall(name: string, input: Omit<McpToolCallInput, 'server'>) {
  const t = await testEnvironment({ timeSkipping: true, name });
  try {
    const handle = await t.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `${name}-${Date.now()}`,
      args: [{ server: 'fx', ...input }],
    });
    return { handle, env: t.env, taskQueue: t.taskQueue, logPath: t.logPath, [Symbol.asyncDispose]: () => t.teardown() };
  } catch (err) {
    await t.teardown();
    throw err;
  }
}

describe('expiry on the time-skipping server', () => {
  it('an unanswered request expires into cancel once expiresIn has elapsed, and a later answer is rejected', async () => {
    const expiresIn = 2 * 60 * 60 * 1000; // two hours of workflow time, skipped
    await using call = await expiringCall('expiry', { tool: 'ask_name', elicitation: { expiresIn, holdFor: 200 } });
    const { handle, env, logPath } = call;
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
    await using call = await expiringCall('expiry-duration', {
      tool: 'ask_name',
      elicitation: { expiresIn: '4s', holdFor: '1 minute' },
      toolTimeout: '1h',
      heartbeatTimeout: '30s',
    });
    const { handle, env, taskQueue, logPath } = call;
    const { request, context } = await eventually(async () => (await handle.query(pendingDetailsQuery))[0], 'the request to be pending');
    const seenAt = await env.currentTimeMs();
    const askedAt = Date.parse(context.askedAt!);
    assert.equal(Date.parse(request.expiresAt!) - askedAt, 4000, `expiresAt is the workflow time it was asked + 4 s: ${request.expiresAt}`);
    assert.ok(askedAt <= seenAt, `asked (${context.askedAt}) in workflow time, before it was seen`);
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
    await using call = await expiringCall('expiry-hold0', { tool: 'ask_name', elicitation: { expiresIn: 60 * 60 * 1000, holdFor: 0 } });
    const { handle, logPath } = call;
    await waitForPending(handle);
    assert.deepEqual(await handle.result(), { output: 'cancelled', isError: false });
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'cancel' }]);
  });

  it('an answer after expiry is rejected: the request is gone and the call already ended in cancel', async () => {
    await using call = await expiringCall('expiry-late', { tool: 'ask_twice', elicitation: { expiresIn: 60 * 60 * 1000, holdFor: 200 } });
    const { handle, logPath } = call;
    const [first] = await waitForPending(handle);
    assert.equal((await handle.result()).output, 'cancelled at 1');
    await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { first: 'Ada' } }] }), /completed|not found/i);
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'cancel' }], 'the server saw cancel once, never the late answer');
  });
});
