/**
 * MCP Tasks (2026-07-28 extension) across a crash and across days, against the project's task server over HTTP
 * (test/fixtures/task-server.ts, its own process, its task store outliving the worker): a worker SIGKILLed while the
 * task works, a new worker re-attaches with the task id the workflow recorded and the server counts one tools/call;
 * a person answering after days (time-skipping) within the task's ttlMs; a task whose ttlMs passes fails TaskExpired
 * (and the server is sent tasks/cancel). See docs/tasks.md.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { writeJson } from '../faults/lib.js';
import { withDevServer, workerProcess } from '../helpers/dev-server.js';
import { taskServerForFile } from '../helpers/task-server.js';
import { eventually, testEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const tasks = taskServerForFile();
const { callsOf } = tasks;

describe('MCP Tasks (2026-07-28 extension) across a crash and across days', () => {
  it('the worker SIGKILLed while the task works: a new worker re-attaches by task id; the server counts one tools/call', async () => {
    await withDevServer('tasks', async (server, client, dir) => {
      const configPath = writeJson(join(dir, 'mcp.json'), { mcpServers: tasks.extraServers });
      const taskQueue = `tasks-kill-${process.pid}-${Date.now()}`;
      const first = workerProcess(server, configPath, taskQueue);
      await first.waitFor(/durable-mcp worker: Temporal/, 60_000);
      const handle = await client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: `tasks-kill-${Date.now()}`,
        // A short heartbeat timeout: the dead worker's watch is noticed quickly.
        args: [{ server: 'tasks', tool: 'slow', arguments: { workMs: 8000 }, heartbeatTimeout: '2s' }],
      });
      const taskId = await eventually(async () => callsOf('slow')[0]?.taskId as string | undefined, 'the task created');
      await eventually(async () => tasks.log().some((e) => e.method === 'tasks/get' && e.taskId === taskId), 'the first worker polls');
      await first.kill('SIGKILL');
      const gets = () => tasks.log().filter((e) => e.method === 'tasks/get' && e.taskId === taskId).length;
      const before = gets();
      const second = workerProcess(server, configPath, taskQueue);
      try {
        assert.deepEqual(await handle.result(), { output: 'slow done after 8000 ms', isError: false });
      } finally {
        await second.kill('SIGTERM');
      }
      assert.ok(gets() > before, 'the new worker polled the same task');
      assert.equal(callsOf('slow').length, 1, 'the server counted one tools/call');
    });
  });

  it('answered after 3 days (time-skipping) within the ttlMs of 7 days: the answer reaches the task', async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'tasks-days', extraServers: tasks.extraServers });
    const handle = await t.env.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `tasks-days-${Date.now()}`,
      args: [{ server: 'tasks', tool: 'ask_once', arguments: { ttlMs: 7 * 24 * 3600_000 }, elicitation: { expiresIn: '30d' } }],
    });
    const [request] = await waitForPending(handle);
    await t.env.sleep(3 * 24 * 3600_000);
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { reason: 'late' } });
    assert.deepEqual(await handle.result(), { output: 'answered: accept', isError: false });
  });

  it('a task whose ttlMs passes unanswered fails TaskExpired, and the server is sent tasks/cancel', async () => {
    await using t = await testEnvironment({ timeSkipping: true, name: 'tasks-ttl', extraServers: tasks.extraServers });
    const handle = await t.env.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `tasks-ttl-${Date.now()}`,
      args: [{ server: 'tasks', tool: 'ask_once', arguments: { ttlMs: 3600_000 }, elicitation: { expiresIn: '30d' } }],
    });
    await waitForPending(handle);
    const taskId = callsOf('ask_once').at(-1)!.taskId;
    await t.env.sleep(2 * 3600_000);
    await assert.rejects(handle.result(), (err: any) => {
      assert.equal(err.cause?.type, 'TaskExpired');
      assert.match(err.cause?.message, /did not end within its ttlMs \(3600000 ms\)/);
      return true;
    });
    await eventually(async () => tasks.log().some((e) => e.event === 'cancel' && e.taskId === taskId), 'tasks/cancel at the server');
  });
});
