/**
 * `health` after the last worker dies: green while Temporal would call the worker live (its last poll under a minute old:
 * a poll lasts up to a minute), red once that poll is older than POLLER_FRESH_MS. A SIGKILLed worker sends no shutdown,
 * so Temporal keeps listing it; only the age of its last poll says it is gone. Real CLI, dev server, worker process.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { POLLER_FRESH_MS } from '../../src/client/workers.js';
import { suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { cli, EXIT, run } from '../helpers/cli.js';

describe('health turns red once the last poll of the task queue is older than a poll can last', () => {
  let worker: SpawnedProcess;
  let cliEnv: Record<string, string>;
  after(async () => {
    await worker?.kill('SIGKILL');
  });
  // A worker process only: the environment starts none.
  const suite = suiteEnvironment({ name: 'cli-health', startWorker: false });
  before(async () => {
    const config = join(tempDir('cli-health-'), 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    cliEnv = { TEMPORAL_ADDRESS: suite.env.address, DURABLE_MCP_TASK_QUEUE: suite.taskQueue };
    worker = spawnNode([cli, 'worker', '--mcp-config', config], cliEnv);
    await worker.waitFor(/task queue/, 60_000);
  });

  /** The age of the task queue's most recent poll, as Temporal reports it (ms), or undefined when none is listed. */
  async function lastPollAge(): Promise<number | undefined> {
    const res = await suite.client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: cliEnv.DURABLE_MCP_TASK_QUEUE },
      taskQueueType: 1,
    });
    const times = (res.pollers ?? []).map((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6));
    return times.length ? Date.now() - Math.max(...times) : undefined;
  }

  it('green while the killed worker could still be polling, red once its last poll is older than POLLER_FRESH_MS', { timeout: 240_000 }, async () => {
    assert.equal((await run(['health'], cliEnv)).code, 0, 'a live worker');
    await worker.kill('SIGKILL');
    for (;;) {
      const before = await lastPollAge();
      const health = await run(['health', '--json'], cliEnv);
      const after = await lastPollAge();
      if (health.code === EXIT.NO_WORKER) {
        assert.deepEqual(JSON.parse(health.stdout).workerPolls, false);
        assert.ok(after === undefined || after > 60_000, `red only when Temporal's minute of a poll is over (last poll ${after} ms ago)`);
        break;
      }
      assert.equal(health.code, 0, health.stderr);
      assert.ok(before !== undefined && before <= POLLER_FRESH_MS, `green only while the last poll is fresh (${before} ms ago)`);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  });
});
