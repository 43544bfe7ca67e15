import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { submitAnswerUpdate } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { eventually, testEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

/**
 * A server with one session (`maxSessions: 1`): a call waiting for a person holds it while a second call waits for a
 * session. The holder keeps it for the pool's `handoverGraceMs`, then gives it up (closed, the tool re-run once
 * answered, from the record).
 */
describe('a call waiting for a person and a call waiting for its session', () => {
  /**
   * An environment whose worker's only session of `fx` is handed over after `handoverGraceMs`, a call `asking` whose
   * request is pending, then a call `echo` started after it; and the fixture log.
   */
  async function askingThenEcho(handoverGraceMs: number) {
    const t = await testEnvironment({ name: 'handover', fx: { maxSessions: 1 }, pool: { handoverGraceMs } });
    const start = (tool: string, args: Record<string, unknown> = {}) =>
      t.client.workflow.start(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `${tool}-${Math.random().toString(36).slice(2)}`,
        // holdFor 10 min: only the session pressure can release the waiting call. heartbeatTimeout 600 ms: the call's
        // heartbeat (every 200 ms) says when it waits for a session.
        args: [{ server: 'fx', tool, arguments: args, elicitation: { holdFor: 600_000 }, heartbeatTimeout: 600 }],
      });
    const asking = await start('ask_name');
    const [request] = await waitForPending(asking);
    const echo = await start('echo', { text: 'next' });
    const events = () => readFixtureLog(t.logPath);
    return { asking, request, echo, events, [Symbol.asyncDispose]: () => t.teardown() };
  }

  /** Resolves once the call's activity heartbeats that it waits for a session of its server. */
  async function waitingForSession(handle: WorkflowHandle): Promise<void> {
    await eventually(async () => {
      const payload = (await handle.describe()).raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
      const phase = payload ? (handle.client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as { state?: string }) : undefined;
      return phase?.state === 'leasing';
    }, `${handle.workflowId} to wait for a session`);
  }

  it('an answer within the grace finishes the call on its session: the tool runs once and the other call gets the session after', async () => {
    await using calls = await askingThenEcho(600_000);
    const { asking, request, echo, events } = calls;
    await waitingForSession(echo);

    await asking.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    assert.deepEqual(await asking.result(), { output: 'hello Ada', isError: false });
    assert.deepEqual(await echo.result(), { output: 'echo: next', isError: false });
    const log = events();
    assert.equal(log.filter((e) => e.event === 'call' && e.tool === 'ask_name').length, 1, 'ask_name ran once: the waiting call kept its session');
    assert.equal(log.filter((e) => e.event === 'initialized').length, 1, 'one session served both calls');
  });

  it('after the grace the waiting call gives its session up: the other call finishes first, the tool re-runs once answered with the one answer', async () => {
    await using calls = await askingThenEcho(300);
    const { asking, request, echo, events } = calls;
    assert.deepEqual(await echo.result(), { output: 'echo: next', isError: false }, 'the echo got the session while ask_name waited');
    assert.equal((await asking.describe()).status.name, 'RUNNING');

    await asking.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    assert.deepEqual(await asking.result(), { output: 'hello Ada', isError: false });
    const log = events();
    assert.equal(log.filter((e) => e.event === 'call' && e.tool === 'ask_name').length, 2, 'ask_name was released and re-run');
    const received = log.filter((e) => e.event === 'received' && e.tool === 'ask_name').map((e) => e.result);
    assert.deepEqual(received, [{ action: 'accept', content: { name: 'Ada' } }], 'the re-run got the one answer, from the record');
  });
});
