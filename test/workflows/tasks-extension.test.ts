/**
 * MCP Tasks, the 2026-07-28 extension `io.modelcontextprotocol/tasks`, through the worker, against a task server of
 * the project's own (test/fixtures/task-server.ts, over HTTP, counting its tools/calls): the task id goes into
 * history first and the task is watched by `watchMcpTask` (tasks/get with `Mcp-Name`); its questions are durable
 * Requests answered through the inbox's signal and sent with tasks/update; a failed or cancelled task fails typed, an
 * isError result stays a result; cancellation reaches the server as tasks/cancel; `-32021` fails at once, typed.
 * See docs/tasks.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery, progressQuery } from '../../src/workflows/messages.js';
import { taskServerForFile } from '../helpers/task-server.js';
import { eventually, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const { extraServers, log, callsOf: taskOf } = taskServerForFile({ tasks: {}, notasks: { tasks: 'off' } });

describe('MCP Tasks, 2026-07-28 extension, through the worker (a task server of our own over HTTP)', () => {
  const suite = suiteEnvironment({ name: 'tasks-extension', extraServers });
  const start = (server: string, tool: string, args: Record<string, unknown> = {}) =>
    suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `tasks-${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server, tool, arguments: args }],
    });

  it('a task that asks twice: each input request a Request answered through the answer signal, sent with tasks/update; one tools/call', async () => {
    const handle = await start('tasks', 'ask_twice');
    const [name] = await waitForPending(handle);
    assert.equal(name.kind, 'input');
    assert.equal(name.prompt, 'Your name?');
    // The task's last status while it waits is the call's progress (sent as the watch ends, past the once-a-second limit).
    await eventually(
      async () => (await handle.query(progressQuery)).some((p) => p.message === 'input_required: needs a name'),
      'the waiting status as progress',
    );
    await handle.signal(answerSignal, { id: name.id, ok: true, data: { name: 'Ada' } });
    const color = await eventually(async () => (await handle.query(pendingQuery)).find((r) => r.prompt === 'Your colour?'), 'the second question');
    await handle.signal(answerSignal, { id: color.id, ok: true, data: { color: 'green' } });
    const result = await handle.result();
    assert.deepEqual(result, { output: 'Ada likes green', isError: false });
    assert.equal(taskOf('ask_twice').length, 1, 'the server saw one tools/call');
    const entries = log();
    const updates = entries.filter((e) => e.event === 'update');
    assert.ok(updates.some((u) => (u.inputResponses as any)?.name?.content?.name === 'Ada'));
    assert.ok(updates.some((u) => (u.inputResponses as any)?.color?.content?.color === 'green'));
    const taskRequests = entries.filter((e) => e.event === 'request' && String(e.method).startsWith('tasks/'));
    assert.ok(taskRequests.length > 0);
    for (const r of taskRequests) assert.equal(r.mcpName, r.taskId, 'Mcp-Name: <taskId> on every tasks/* request');
    const { events } = await handle.fetchHistory();
    const firstCompleted = events!.find((e) => e.activityTaskCompletedEventAttributes);
    assert.ok(firstCompleted, 'the first activity (tools/call) completed with the task id in history');
  });

  it("a task's status and statusMessage are the call's progress; the result arrives", async () => {
    const handle = await start('tasks', 'slow', { workMs: 3000 });
    await eventually(async () => (await handle.query(progressQuery)).some((p) => /^working: (started|halfway)/.test(p.message ?? '')), 'task progress');
    assert.deepEqual(await handle.result(), { output: 'slow done after 3000 ms', isError: false });
  });

  it('an isError result stays a result; a failed task fails TaskFailed carrying the server error', async () => {
    assert.deepEqual(await (await start('tasks', 'is_error')).result(), { output: 'tool error kept', isError: true });
    const failed = await start('tasks', 'fails');
    await assert.rejects(failed.result(), (err: any) => {
      const app = err.cause?.cause ?? err.cause;
      assert.equal(app?.type, 'TaskFailed');
      assert.match(app?.message, /backend exploded \(JSON-RPC -32000\)/);
      return true;
    });
  });

  it('workflow cancellation reaches the server as tasks/cancel', async () => {
    const handle = await start('tasks', 'forever');
    const taskId = await eventually(async () => taskOf('forever')[0]?.taskId as string | undefined, 'its task');
    await eventually(async () => log().some((e) => e.event === 'request' && e.method === 'tasks/get' && e.taskId === taskId), 'watching the task');
    await handle.cancel();
    await assert.rejects(handle.result());
    await eventually(async () => log().some((e) => e.event === 'cancel' && e.taskId === taskId), 'tasks/cancel at the server');
  });

  it('-32021 (tasks: "off" on a server that needs the extension) fails at once, typed, naming the capability', async () => {
    const handle = await start('notasks', 'slow');
    await assert.rejects(handle.result(), (err: any) => {
      const app = err.cause?.cause;
      assert.equal(app?.type, 'MissingClientCapability');
      assert.equal(app?.nonRetryable, true);
      assert.match(app?.message, /io\.modelcontextprotocol\/tasks/);
      assert.match(app?.message, /"tasks": "off"/);
      return true;
    });
    const { events } = await handle.fetchHistory();
    const attempts = events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.deepEqual(attempts, [1], 'one attempt, no retry');
  });
});
