import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { fixtureServerPath, readFixtureLog, receivedAnswers } from '../fixtures/paths.js';
import { eventually, fixtureConfig, startWorker, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';
import { livePids, spawnNode } from '../../scripts/processes.js';
import { waitForPending, watchPending } from '../helpers/watch.js';
import { recordHistory } from '../helpers/history.js';
import { fileURLToPath } from 'node:url';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

describe('a pending request survives the worker', () => {
  // The first test restarts the environment's worker; the others run worker processes on task queues of their own.
  const suite = suiteEnvironment({ name: 'restart' });
  /** A task queue of its own, and a config file with the fixture server (its log at `logPath`) for worker processes. */
  const forWorkerProcesses = (name: string) => {
    const dir = tempDir();
    const logPath = join(dir, 'fixture.jsonl');
    const configPath = join(dir, 'mcp.json');
    writeFileSync(configPath, JSON.stringify(fixtureConfig(logPath)));
    return { taskQueue: uniqueTaskQueue(name), logPath, configPath };
  };

  it('survives a graceful worker shutdown: answered while no worker runs, completed by a new worker, asked once', async () => {
    const { taskQueue, logPath } = suite;
    const handle = await suite.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `restart-graceful-${Date.now()}`,
      args: [{ server: 'fx', tool: 'counter', elicitation: { holdFor: 10 * 60 * 1000 } }],
    });
    const watch = watchPending(handle);
    const [request] = await waitForPending(handle);
    watch.seen.set(request.id, request);
    // The watch is evidence only if it saw the workflow while a worker ran: on a loaded machine its first query can
    // still be waiting when the worker stops (it then fails), and no later query finds a worker before the call ends.
    await eventually(() => watch.counts.answered > 0, 'the watch answered by the first worker');

    await suite.stopWorker();
    const ours = new Set(readFixtureLog(logPath).map((e) => e.pid));
    assert.deepEqual(
      livePids(fixtureServerPath).filter((p) => ours.has(p)),
      [],
      'no MCP server process left behind by the shutdown',
    );

    await handle.signal(answerSignal, { id: request.id, ok: true, data: { confirm: true } });

    await suite.startWorker();
    const result = await handle.result();
    assert.deepEqual(result, { output: 'confirmed', isError: false });
    await recordHistory(handle, 'restart-graceful', suite.env.address);
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request.id], 'pending never showed a second request');
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'accept', content: { confirm: true } }], 'the server saw the answer it expected');
  });

  it('SIGTERM stops a worker process gracefully: the waiting call is released at once and no MCP server is left', async () => {
    const { taskQueue, logPath, configPath } = forWorkerProcesses('sigterm');
    const proc = spawnNode([workerEntry, '--mcp-config', configPath], {
      TEMPORAL_ADDRESS: suite.env.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: taskQueue,
    });
    await proc.waitFor(/durable-mcp worker: Temporal/);
    const handle = await suite.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `sigterm-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { holdFor: 10 * 60 * 1000 } }],
    });
    const [request] = await waitForPending(handle);
    assert.equal((await handle.describe()).raw.pendingActivities?.length, 1, 'the call waits inline');
    await proc.kill('SIGTERM');
    assert.equal(await proc.exited, 0, proc.output().slice(-1500));
    assert.match(proc.output(), /SIGTERM, shutting down/);
    assert.equal((await handle.describe()).raw.pendingActivities?.length ?? 0, 0, 'the call was released, not left to time out');
    const ours = new Set(readFixtureLog(logPath).map((e) => e.pid));
    assert.deepEqual(
      livePids(fixtureServerPath).filter((p) => ours.has(p)),
      [],
      'no MCP server process left behind',
    );
    // The request is still there for the next worker.
    const next = await startWorker(suite.env, { taskQueue, mcpConfig: fixtureConfig(logPath) });
    await next.runUntil(async () => {
      assert.deepEqual(
        ((await handle.query('pending')) as { id: string }[]).map((r) => r.id),
        [request.id],
      );
      await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
      assert.equal((await handle.result()).output, 'hello Ada');
    });
  });

  it('survives SIGKILL of the worker process: the retried attempt attaches to the same request', async () => {
    const { taskQueue, logPath, configPath } = forWorkerProcesses('restart-kill');
    const workerEnv = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_TASK_QUEUE: taskQueue };
    const firstProc = spawnNode([workerEntry, '--mcp-config', configPath], workerEnv);
    await firstProc.waitFor(/durable-mcp worker: Temporal/);

    const handle = await suite.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `restart-kill-${Date.now()}`,
      args: [{ server: 'fx', tool: 'counter', elicitation: { holdFor: 10 * 60 * 1000 }, heartbeatTimeout: 2000 }],
    });
    const watch = watchPending(handle);
    const [request] = await waitForPending(handle);
    watch.seen.set(request.id, request);

    await firstProc.kill('SIGKILL');
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { confirm: true } });

    const secondProc = spawnNode([workerEntry, '--mcp-config', configPath], workerEnv);
    try {
      const result = await handle.result();
      assert.deepEqual(result, { output: 'confirmed', isError: false });
      await recordHistory(handle, 'restart-sigkill', suite.env.address);
    } finally {
      await secondProc.kill('SIGTERM');
    }
    assert.equal(await secondProc.exited, 0, `worker exits cleanly on SIGTERM:\n${secondProc.output().slice(-1500)}`);
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request.id], 'pending never showed a second request');
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'accept', content: { confirm: true } }]);
    assert.deepEqual(
      livePids(fixtureServerPath).filter((p) => readFixtureLog(logPath).some((e) => e.pid === p)),
      [],
      'no orphaned MCP server',
    );
  });
});
