/**
 * An MCP server over HTTP that the tests of one file share: started in the file's `before`, closed in its `after`,
 * and named in the file's `extraServers` once it listens (the suites' environments read them when they start).
 */
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { tempDir } from './temporal.js';

export interface FileServer<S extends { url: string; close(): Promise<void> }> {
  /** The servers a suite environment adds to its MCP config: those given, and `names` once the server listens. */
  readonly extraServers: Record<string, unknown>;
  /** The running server (throws before the file's `before` ran). */
  readonly server: S;
  /** Its MCP URL. */
  readonly url: string;
}

/**
 * Start `start()` in the calling file's `before` and close it in its `after`; each entry of `names` is then in
 * `extraServers` as `{ url, ...options }` (e.g. `{ tasks: {}, notasks: { tasks: 'off' } }`), next to those already
 * in `extraServers` (e.g. the same fixture over stdio).
 */
export function serverForFile<S extends { url: string; close(): Promise<void> }>(
  start: () => Promise<S>,
  names: Record<string, Record<string, unknown>> = {},
  extraServers: Record<string, unknown> = {},
): FileServer<S> {
  let running: S | undefined;
  before(async () => {
    running = await start();
    for (const [name, options] of Object.entries(names)) extraServers[name] = { url: running.url, ...options };
  });
  after(async () => {
    await running?.close();
  });
  return {
    extraServers,
    get server(): S {
      if (!running) throw new Error('serverForFile: the server starts in the file’s before hook; it is not running yet');
      return running;
    },
    get url(): string {
      return this.server.url;
    },
  };
}

/**
 * A node fixture server of test/fixtures (`script`) both ways, for a file: over stdio as `names.stdio` (the worker
 * spawns it) and over HTTP as `names.http` (started in `before`), each logging to a file of its own (`logs`).
 */
export function fixtureBothWays(script: string, names: { stdio: string; http: string }): FileServer<HttpFixture> & { logs: { stdio: string; http: string } } {
  const dir = tempDir();
  const logs = { stdio: join(dir, `${names.stdio}.jsonl`), http: join(dir, `${names.http}.jsonl`) };
  const served = serverForFile(
    () => startHttpFixture({ script, env: { FIXTURE_LOG: logs.http } }),
    { [names.http]: {} },
    { [names.stdio]: { command: [process.execPath, script], env: { FIXTURE_LOG: logs.stdio } } },
  );
  return Object.defineProperty(served, 'logs', { value: logs, enumerable: true }) as FileServer<HttpFixture> & { logs: typeof logs };
}
