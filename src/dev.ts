/**
 * `durable-mcp dev`: an embedded Temporal dev server (Temporal CLI, SQLite file under a data folder),
 * the worker, and a demo MCP server that elicits. With TEMPORAL_ADDRESS set, it uses that server instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadMcpConfigFile, parseMcpConfig, type McpConfig } from './mcp/index.js';
import { findTemporalBinary } from './temporal/binaries.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE } from './workflows/messages.js';
import { connectFromEnv, createWorker, installRuntime, mallocArenaHint, type DurableMcpWorker } from './worker.js';

const here = dirname(fileURLToPath(import.meta.url));
export const demoServerPath = join(here, 'demo', 'server.js');
export const cliPath = join(here, 'cli.js');

export function demoMcpConfig(): Record<string, unknown> {
  return { mcpServers: { demo: { command: [process.execPath, demoServerPath] } } };
}

export interface DevOptions {
  dataDir: string;
  mcpConfigPath?: string;
  port: number;
  uiPort: number;
  taskQueue?: string;
  log?: (line: string) => void;
}

export interface DevHandle {
  address: string;
  uiAddress?: string;
  /** Settles when everything has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
}

async function waitForServer(address: string, child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  let last: unknown;
  while (Date.now() - start < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`the Temporal dev server exited with code ${child.exitCode}:\n${output().slice(-1500)}`);
    try {
      const c = await Connection.connect({ address, connectTimeout: '1s' });
      await c.workflowService.getSystemInfo({});
      await c.close();
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`the Temporal dev server did not answer at ${address} within ${timeoutMs} ms: ${(last as Error)?.message}`);
}

export async function startDev(options: DevOptions): Promise<DevHandle> {
  const log = options.log ?? ((line: string) => console.log(line));
  installRuntime();
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });

  let config: McpConfig;
  if (options.mcpConfigPath) {
    config = loadMcpConfigFile(options.mcpConfigPath);
  } else {
    const demo = demoMcpConfig();
    writeFileSync(join(dataDir, 'demo-mcp.json'), `${JSON.stringify(demo, null, 2)}\n`);
    config = parseMcpConfig(demo, 'demo MCP config');
  }

  let server: ChildProcess | undefined;
  let address: string;
  let uiAddress: string | undefined;
  let connection: NativeConnection;
  let namespace = 'default';
  if (process.env.TEMPORAL_ADDRESS) {
    const c = await connectFromEnv();
    connection = c.connection;
    namespace = c.namespace;
    address = c.address;
    log(`Temporal: ${address} (from TEMPORAL_ADDRESS), namespace ${namespace}`);
  } else {
    const bin = findTemporalBinary('cli', { allowDownload: false });
    address = `127.0.0.1:${options.port}`;
    uiAddress = `http://127.0.0.1:${options.uiPort}`;
    const dbFile = join(dataDir, 'temporal.db');
    let out = '';
    server = spawn(
      bin.path!,
      [
        'server', 'start-dev',
        '--db-filename', dbFile,
        '--ip', '127.0.0.1',
        '--port', String(options.port),
        '--ui-port', String(options.uiPort),
        '--namespace', namespace,
        '--search-attribute', `${AWAITING_INPUT_SEARCH_ATTRIBUTE}=Bool`,
        '--log-level', 'error',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitForServer(address, server, () => out);
      connection = await NativeConnection.connect({ address });
    } catch (err) {
      server.kill('SIGKILL');
      throw err;
    }
    log(`Temporal dev server: ${address} (data: ${dbFile})`);
    log(`Temporal UI:         ${uiAddress}`);
  }

  let worker: DurableMcpWorker;
  try {
    worker = await createWorker({ connection, namespace, taskQueue: options.taskQueue, mcpConfig: config });
  } catch (err) {
    server?.kill('SIGTERM');
    throw err;
  }
  const running = worker.run();
  const cli = `node ${cliPath}`;
  log(`Worker: task queue ${worker.taskQueue}, MCP servers: ${Object.keys(config.servers).join(', ')}`);
  const hint = mallocArenaHint();
  if (hint) log(`Note: ${hint}`);
  log('');
  log('Try it (in another terminal):');
  log(`  ${cli} call demo book_table --args '{"restaurant":"Chez Temporal"}'`);
  log(`  ${cli} pending`);
  log(`  ${cli} answer <workflowId> <requestId> --data '{"name":"Ada","guests":2,"date":"2026-12-24"}'`);
  log(`  ${cli} result <workflowId>`);
  log('Ctrl-C stops everything; the workflows are kept for the next start.');

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close().catch(() => undefined);
      if (server && server.exitCode === null) {
        const exited = new Promise<void>((r) => server!.once('exit', () => r()));
        server.kill('SIGTERM');
        const timer = setTimeout(() => server!.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    })();
    return stopping;
  };
  const done = running.then(
    () => stop(),
    async (err) => {
      await stop();
      throw err;
    },
  );
  return { address, uiAddress, done, stop };
}
