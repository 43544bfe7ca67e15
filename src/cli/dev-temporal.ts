/**
 * The Temporal server of `durable-mcp dev`: the embedded dev server (Temporal CLI `server start-dev`, a SQLite file
 * under the data folder, durable-mcp's search attributes registered) started and stopped, or the server of
 * TEMPORAL_ADDRESS connected to.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../workflows/visibility.js';
import { connectFromEnv } from '../worker.js';
import { findTemporalBinary } from './temporal-binaries.js';

/** The Temporal server `dev` works with: the embedded one it started (`server`, `uiAddress`, `database`) or an external one. */
export interface DevTemporal {
  address: string;
  namespace: string;
  connection: NativeConnection;
  server?: ChildProcess;
  uiAddress?: string;
  database?: string;
}

export const isRunning = (child: ChildProcess | undefined): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null;

async function waitForServer(address: string, child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  let last: unknown;
  while (Date.now() - start < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the Temporal dev server exited with ${child.signalCode ?? `code ${child.exitCode}`}:\n${output().slice(-1500)}`);
    }
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

/** The server of TEMPORAL_ADDRESS (`external`), connected through envconfig; `onError` runs before a failure is thrown. */
export async function connectExternalTemporal(
  external: string,
  log: (line: string) => void,
  note: (message: string) => void,
  onError: () => unknown,
): Promise<DevTemporal> {
  note(
    `TEMPORAL_ADDRESS is set (${external}): using that Temporal server, not starting one;` +
      ` --port, --ui-port and --data-dir are not used. Unset it to start an embedded dev server.`,
  );
  const c = await connectFromEnv().catch(async (err) => {
    await onError();
    throw err;
  });
  log(`Temporal: ${c.address} (from TEMPORAL_ADDRESS), namespace ${c.namespace}`);
  return { connection: c.connection, namespace: c.namespace, address: c.address };
}

/**
 * Start the embedded dev server on 127.0.0.1 (its UI decoding through `codecUrl` when given) and connect to it.
 * Aborted by `signal` while starting, or failing, it is killed, `onError` runs, and this rejects.
 */
export async function startDevTemporal(options: {
  dataDir: string;
  port: number;
  uiPort: number;
  codecUrl?: string;
  signal?: AbortSignal;
  log: (line: string) => void;
  note: (message: string) => void;
  onError: () => unknown;
}): Promise<DevTemporal> {
  const { log, signal } = options;
  const namespace = 'default';
  const bin = findTemporalBinary('cli', { allowDownload: false, log: options.note });
  const address = `127.0.0.1:${options.port}`;
  const uiAddress = `http://127.0.0.1:${options.uiPort}`;
  const dbFile = join(options.dataDir, 'temporal.db');
  let out = '';
  const server = spawn(
    bin.path!,
    [
      'server',
      'start-dev',
      '--db-filename',
      dbFile,
      '--ip',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--ui-port',
      String(options.uiPort),
      '--namespace',
      namespace,
      ...SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', `${a.name}=${a.type}`]),
      '--log-level',
      'error',
      ...(options.codecUrl ? ['--ui-codec-endpoint', options.codecUrl] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const abortStart = () => server.kill('SIGTERM');
  signal?.addEventListener('abort', abortStart, { once: true });
  let connection: NativeConnection | undefined;
  try {
    if (signal?.aborted) throw new Error('stopped while starting');
    await waitForServer(address, server, () => out);
    // What answered must be the server this process started (it would have exited on a port it could not bind).
    if (!isRunning(server)) throw new Error(`the Temporal dev server exited at start:\n${out.slice(-1500)}`);
    connection = await NativeConnection.connect({ address });
    if (signal?.aborted) throw new Error('stopped while starting');
  } catch (err) {
    server.kill('SIGKILL');
    await connection?.close().catch(() => undefined);
    await options.onError();
    throw signal?.aborted ? new Error('stopped while starting') : err;
  } finally {
    signal?.removeEventListener('abort', abortStart);
  }
  log(`Temporal dev server: ${address} (data: ${dbFile})`);
  log(`Temporal UI:         ${uiAddress}${options.codecUrl ? ' (decodes payloads through the codec server)' : ''}`);
  return { address, namespace, connection, server, uiAddress, database: dbFile };
}

/** Stop the dev server `dev` started: SIGTERM, and SIGKILL after 10 s. */
export async function stopDevServer(server: ChildProcess | undefined): Promise<void> {
  if (!isRunning(server)) return;
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
