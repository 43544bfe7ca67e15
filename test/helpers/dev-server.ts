/**
 * A dev server of a test's own (test/faults/lib.ts `DevServer`: a SQLite file, so it outlives a killed worker) and
 * `durable-mcp worker` processes on it: for the tests that SIGKILL a worker and start another (mrtr-restart,
 * tasks-restart).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { DevServer } from '../faults/lib.js';
import { tempDir } from './temporal.js';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

/** Run `fn` with a dev server started in a new temp folder (`dir`, also for the test's own files) and a client of it; the server is stopped after. */
export async function withDevServer(name: string, fn: (server: DevServer, client: Client, dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const server = await DevServer.create(join(dir, 'temporal'), `${name}-${process.pid}`);
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

/** A `durable-mcp worker` process on `server`'s default namespace and `taskQueue`, with the MCP config at `configPath`. */
export function workerProcess(server: DevServer, configPath: string, taskQueue: string): SpawnedProcess {
  return spawnNode([workerEntry, '--mcp-config', configPath], {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: 'default',
    DURABLE_MCP_TASK_QUEUE: taskQueue,
  });
}
