/**
 * `durable-mcp dev --nexus` (docs/nexus.md, docs/cli.md): the dev worker offers the Nexus service `durable-mcp` too. A
 * real `dev --nexus --json` on free ports says so in its ready line; an endpoint created with the Temporal CLI on dev's
 * own server, targeting dev's task queue, answers `listTools` to a caller workflow in another namespace.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { createNexusEndpoint } from '../helpers/nexus.js';
import { freePort } from '../helpers/ports.js';
import { quietRuntime, tempDir } from '../helpers/temporal.js';

const cli = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
const callerWorkflows = fileURLToPath(new URL('./caller-workflows.js', import.meta.url));

describe('dev --nexus', () => {
  let dev: SpawnedProcess | undefined;
  let callerWorker: Worker | undefined;
  let running: Promise<void> | undefined;
  const closers: Array<() => Promise<void>> = [];
  after(async () => {
    callerWorker?.shutdown();
    await running?.catch(() => undefined);
    for (const close of closers) await close().catch(() => undefined);
    await dev?.kill('SIGINT');
  });

  it("offers the Nexus service: its ready line names it, and an endpoint to dev's task queue answers listTools", async () => {
    quietRuntime();
    const dir = tempDir('dev-nexus-');
    mkdirSync(join(dir, 'data'));
    const port = await freePort();
    const env = { TEMPORAL_ADDRESS: undefined, MCP_CONFIG: undefined, DURABLE_MCP_ENCRYPTION_KEYS: undefined, DURABLE_MCP_TASK_QUEUE: undefined };
    const args = ['--data-dir', join(dir, 'data'), '--port', String(port), '--ui-port', String(await freePort()), '--inbox-port', '0', '--codec-port', '0'];
    dev = spawnNode([cli, 'dev', ...args, '--no-agent', '--nexus', '--json'], env, dir);
    const line = await dev.waitFor(/\{"event":"ready".*\}/, 120_000);
    const ready = JSON.parse(/\{"event":"ready".*\}/.exec(line)![0]) as { nexusService?: string; taskQueue: string; temporal: { address: string } };
    assert.equal(ready.nexusService, 'durable-mcp');

    // The caller's namespace and the endpoint, on dev's own server, as docs/nexus.md shows them.
    await createNexusEndpoint(ready.temporal.address, { namespace: 'caller-dev', endpoint: 'durable-mcp', taskQueue: ready.taskQueue });

    const native = await NativeConnection.connect({ address: ready.temporal.address });
    closers.push(() => native.close());
    callerWorker = await Worker.create({ connection: native, namespace: 'caller-dev', taskQueue: 'dev-callers', workflowsPath: callerWorkflows });
    running = callerWorker.run();
    const connection = await Connection.connect({ address: ready.temporal.address });
    closers.unshift(() => connection.close());
    const callers = new Client({ connection, namespace: 'caller-dev' });
    const caller = await callers.workflow.start('nexusCaller', {
      taskQueue: 'dev-callers',
      workflowId: `dev-nexus-${process.pid}`,
      args: ['durable-mcp', 'listTools', { server: 'demo' }],
    });
    const tools = (await caller.result()) as Array<{ name: string }>;
    assert.ok(
      tools.some((t) => t.name === 'book_table'),
      JSON.stringify(tools.map((t) => t.name)),
    );
  });
});
