/**
 * The modern era (MRTR) across crashes: a worker SIGKILLed while a request is pending, and a Temporal dev
 * server SIGKILLed and restarted on its SQLite file. Nothing is held while the person thinks, so nothing
 * is lost: the human is asked once and the server receives the answer in the next round.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { DevServer, writeJson } from '../faults/lib.js';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { eventually, tempDir } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';
import { fileURLToPath } from 'node:url';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

async function withDevServer(fn: (server: DevServer, client: Client, dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const server = await DevServer.create(join(dir, 'temporal'), `mrtr-${process.pid}`);
  await server.start();
  let connection: Awaited<ReturnType<DevServer['client']>>['connection'] | undefined;
  try {
    const c = await server.client();
    connection = c.connection;
    await fn(server, c.client, dir);
  } finally {
    await connection?.close();
    await server.kill('SIGTERM');
  }
}

function workerProcess(server: DevServer, configPath: string, taskQueue: string): SpawnedProcess {
  return spawnNode([workerEntry, '--mcp-config', configPath], {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: 'default',
    DURABLE_MCP_TASK_QUEUE: taskQueue,
  });
}

const toolRuns = (logPath: string) => readFixtureLog(logPath).filter((e) => e.event === 'tool' && e.tool === 'ask_name');

async function noPendingActivity(handle: WorkflowHandle): Promise<void> {
  await eventually(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'no pending activity');
}

describe('modern era (MRTR) across crashes', () => {
  it('worker SIGKILLed while a modern-era request is pending; answered while no worker runs; a new worker finishes the call; asked once', async () => {
    await withDevServer(async (server, client, dir) => {
      const logPath = join(dir, 'modern.jsonl');
      const configPath = writeJson(join(dir, 'mcp.json'), {
        mcpServers: { m: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: logPath } } },
      });
      const taskQueue = `mrtr-kill-${process.pid}-${Date.now()}`;
      const first = workerProcess(server, configPath, taskQueue);
      await first.waitFor(/durable-mcp worker: Temporal/, 60_000);
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
    await withDevServer(async (server, client, dir) => {
      const logPath = join(dir, 'modern.jsonl');
      const configPath = writeJson(join(dir, 'mcp.json'), {
        mcpServers: { m: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: logPath } } },
      });
      const taskQueue = `mrtr-server-${process.pid}-${Date.now()}`;
      const worker = workerProcess(server, configPath, taskQueue);
      await worker.waitFor(/durable-mcp worker: Temporal/, 60_000);
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
