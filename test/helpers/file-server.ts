/**
 * An MCP server over HTTP that the tests of one file share: started in the file's `before`, closed in its `after`,
 * and named in the file's `extraServers` once it listens (the suites' environments read them when they start).
 */
import { after, before } from 'node:test';

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
