/**
 * The project's task server (test/fixtures/task-server.ts: MCP Tasks, 2026-07-28 extension, over HTTP, counting its
 * tools/calls in its FIXTURE_LOG) for the tests of one file: the tasks-* suites and the inbox's task rows.
 */
import { join } from 'node:path';
import { readFixtureLog, startHttpFixture, taskServerPath, type HttpFixture } from '../fixtures/paths.js';
import { serverForFile, type FileServer } from './file-server.js';
import { tempDir } from './temporal.js';

export interface TaskServer extends FileServer<HttpFixture> {
  /** The server's FIXTURE_LOG. */
  readonly logPath: string;
  /** What the server logged so far. */
  log(): Array<Record<string, unknown>>;
  /** The server's `tools/call`s of `tool` so far. */
  callsOf(tool: string): Array<Record<string, unknown>>;
}

/** Start the task server in the calling file's `before` (closed in its `after`); `names` as in `serverForFile` (default `tasks`). */
export function taskServerForFile(names: Record<string, Record<string, unknown>> = { tasks: {} }): TaskServer {
  const logPath = join(tempDir(), 'tasks.jsonl');
  const served = serverForFile(() => startHttpFixture({ script: taskServerPath, env: { FIXTURE_LOG: logPath } }), names);
  const log = () => readFixtureLog(logPath);
  return {
    extraServers: served.extraServers,
    get server() {
      return served.server;
    },
    get url() {
      return served.url;
    },
    logPath,
    log,
    callsOf: (tool) => log().filter((e) => e.event === 'call' && e.tool === tool),
  };
}
