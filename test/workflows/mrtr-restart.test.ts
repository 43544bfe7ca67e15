/**
 * The modern era (MRTR) across crashes: a worker SIGKILLed while a request is pending, and a Temporal dev
 * server SIGKILLed and restarted on its SQLite file. Nothing is held while the person thinks, so nothing
 * is lost: the human is asked once and the server receives the answer in the next round.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { writeJson, type DevServer } from '../faults/lib.js';
import { withDevServer, workerProcess } from '../helpers/dev-server.js';
import { eventually } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

/** The modern fixture server `m` in an MCP config under `dir`, and a worker process with it on a new task queue (`mrtr-<kind>-…`), once it is up. */
async function modernWorker(server: DevServer, dir: string, kind: string) {
  const logPath = join(dir, 'modern.jsonl');
  const configPath = writeJson(join(dir, 'mcp.json'), { mcpServers: { m: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: logPath } } } });
  const taskQueue = `mrtr-${kind}-${process.pid}-${Date.now()}`;
  const worker = workerProcess(server, configPath, taskQueue);
  await worker.waitFor(/durable-mcp worker: Temporal/, 60_000);
  return { logPath, configPath, taskQueue, worker };
}

const toolRuns = (logPath: string) => readFixtureLog(logPath).filter((e) => e.event === 'tool' && e.tool === 'ask_name');

async function noPendingActivity(handle: WorkflowHandle): Promise<void> {
  await eventually(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'no pending activity');
}

describe('modern era (MRTR) across crashes', () => {
  it('worker SIGKILLed while a modern-era request is pending; answered while no worker runs; a new worker finishes the call; asked once', async () => {
    await withDevServer('mrtr', async (server, client, dir) => {
      const { logPath, configPath, taskQueue, worker: first } = await modernWorker(server, dir, 'kill');
      const handle = await client.workflow.start(mcpToolCall, { taskQueue, workflowId: `mrtr-kill-${Date.now()}`, args: [{ server: 'm', tool: 'ask_name' }] });
      const watch = watchPending(handle);
      const [request] = await waitForPending(handle);
      watch.seen.set(request.id, request);
      await noPendingActivity(handle);
      await first.kill('SIGKILL');

      await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
      const second = workerProcess(server, configPath, taskQueue);
      try {
        assert.equal((await handle.result()).output, 'Hello Ada');
      } finally {
        await second.kill('SIGTERM');
      }
      const seen = await watch.stop();
      assert.deepEqual([...seen.keys()], [request.id], 'the human was asked once');
      const runs = toolRuns(logPath);
      assert.equal(runs.length, 2, 'one tool body run per round, none repeated');
      assert.deepEqual(runs[1].inputResponses, { name: { action: 'accept', content: { name: 'Ada' } } });
    });
  });

  it('Temporal dev server SIGKILLed and restarted on its file while a modern-era request is pending: the same request, answered once, reaches the server', async () => {
    await withDevServer('mrtr', async (server, client, dir) => {
      const { logPath, taskQueue, worker } = await modernWorker(server, dir, 'server');
      try {
        const workflowId = `mrtr-server-${Date.now()}`;
        const handle = await client.workflow.start(mcpToolCall, { taskQueue, workflowId, args: [{ server: 'm', tool: 'ask_name' }] });
        const [request] = await waitForPending(handle);
        await noPendingActivity(handle);

        await server.kill('SIGKILL');
        await server.start();
        const again = await server.client();
        try {
          const h = again.client.workflow.getHandle(workflowId);
          // The worker reconnects by itself; the request is the same one.
          const pending = await eventually(async () => (await h.query(pendingQuery)).map((r) => r.id), 'pending after the restart', 120_000, 500);
          assert.deepEqual(pending, [request.id]);
          await h.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Grace' } });
          assert.equal((await h.result()).output, 'Hello Grace');
        } finally {
          await again.connection.close();
        }
        const runs = toolRuns(logPath);
        assert.equal(runs.length, 2);
        assert.deepEqual(runs[1].inputResponses, { name: { action: 'accept', content: { name: 'Grace' } } });
      } finally {
        await worker.kill('SIGTERM');
      }
    });
  });
});
