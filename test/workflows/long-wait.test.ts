/**
 * A request watched for days (time-skipping test server, real stdio fixture server): `waitForPending` every
 * 10 minutes for DURABLE_MCP_LONG_WAIT_DAYS simulated days (default 4: 576 waits, in `npm test`; fault case F7
 * runs it for 30 days: 4,320 waits, more than the 2,000 updates Temporal allows a run). The tool call continues
 * as new while it waits, carrying the request; the same request stays pending and answerable, and the person is
 * asked once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowUpdateStage } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { TOOL_CALL_MAX_UPDATES } from '../../src/workflows/mcp-tool-call.js';
import { pendingQuery, submitAnswerUpdate, waitForPendingUpdate } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { continueAsNewInputs } from '../helpers/history.js';
import { testEnvironment } from '../helpers/temporal.js';

const WAIT_MS = 10 * 60_000;
const DAYS = Number(process.env.DURABLE_MCP_LONG_WAIT_DAYS ?? 4);

describe(`a request watched for ${DAYS} days (time-skipping)`, () => {
  it(`waitForPending every 10 minutes for ${DAYS} days: still answerable, asked once, across continue-as-new runs`, async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'long-wait' });
    const { env, taskQueue, logPath } = t;
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `long-wait-${Date.now()}`,
      // Released at once (nothing held while the person takes a month); expires after 60 days.
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { holdFor: 0, expiresIn: 60 * 24 * 60 * 60_000 } }],
    });
    // The first wait ends when the request is pending, never by its timer. The time-skipping server runs its clock at
    // real pace between skips, and it strands a run whose workflow task cancels a timer that fired meanwhile
    // (temporalio/sdk-java#3088; scripts/upstream/UPSTREAM.md): a 1-second timer here raced the request, whose task
    // cancels it, and the run never got another task (CI hung on it for an hour). A 10-minute timer cannot fire
    // while the clock runs at real pace.
    let id: string | undefined;
    while (!id) {
      const [first] = await handle.executeUpdate(waitForPendingUpdate, { args: [{ timeoutMs: WAIT_MS }] });
      id = first?.id;
    }
    const waits = (DAYS * 24 * 60 * 60_000) / WAIT_MS;
    const seenIds = new Set<string>([id]);
    for (let i = 0; i < waits; i++) {
      // Accepted (its 10-minute timer started), then 10 minutes of workflow time skipped.
      const wait = await handle.startUpdate(waitForPendingUpdate, { args: [{ seen: [id], timeoutMs: WAIT_MS }], waitForStage: WorkflowUpdateStage.ACCEPTED });
      await env.sleep(WAIT_MS);
      const pending = await wait.result();
      for (const r of pending) seenIds.add(r.id);
    }
    assert.deepEqual([...seenIds], [id], 'only the one request was ever pending');
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [id],
      'still pending after the month',
    );
    const carried = await continueAsNewInputs(handle);
    // At least once per TOOL_CALL_MAX_UPDATES waits (Temporal's own suggestion, by history size, comes sooner).
    const atLeast = Math.max(1, Math.floor(waits / TOOL_CALL_MAX_UPDATES));
    assert.ok(carried.length >= atLeast, `continued as new at least ${atLeast} times over ${waits} waits (did ${carried.length})`);
    for (const c of carried) {
      assert.equal(c.input.continued.waitingFor, id, 'each run carried the waiting call');
      assert.deepEqual(
        c.input.continued.host.pending.map((e: { request: { id: string } }) => e.request.id),
        [id],
        'and the pending request',
      );
    }
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id, ok: true, data: { name: 'Ada' } }] });
    assert.deepEqual(await handle.result(), { output: 'hello Ada', isError: false });
    const received = readFixtureLog(logPath).filter((e) => e.event === 'received' && e.tool === 'ask_name');
    assert.deepEqual(
      received.map((e) => e.result),
      [{ action: 'accept', content: { name: 'Ada' } }],
      'the server got one answer: the person was asked once',
    );
    console.log(`long wait: ${waits} waits, ${carried.length} continue-as-new, carried input bytes ${carried.map((c) => c.bytes).join(', ')}`);
  });
});
