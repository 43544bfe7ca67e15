import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { fixtureServerPath } from '../fixtures/paths.js';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { suiteEnvironment, tempDir } from './temporal.js';

const here = dirname(fileURLToPath(import.meta.url));
export const cli = resolve(here, '..', '..', 'src', 'cli', 'main.js');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}
export function run(args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  const start = Date.now();
  return new Promise((res) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: Date.now() - start });
      },
    );
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

/** The documented exit codes (docs/cli.md: the exit codes). */
export const EXIT = { CALL_FAILED: 1, USAGE: 2, TEMPORAL_UNREACHABLE: 3, NO_WORKER: 4, REFUSED: 5 };

/**
 * Registers before/after: a dev server without an in-process worker (`suiteEnvironment`, `startWorker: false`), an MCP
 * config (fixture server fx, a server whose command does not exist, and `extraServers`), a task queue; workers are
 * started with `startWorkerProcess`.
 */
export function cliHarness(options: { extraServers?: Record<string, unknown> } = {}) {
  const workers: SpawnedProcess[] = [];
  const dir = tempDir('cli-failures-');
  const configPath = join(dir, 'mcp.json');
  // Registered first, so it runs before the environment's teardown: the worker processes go first.
  after(async () => {
    for (const w of workers) await w.kill('SIGKILL');
  });
  const suite = suiteEnvironment({ name: 'cli-failures', searchAttributes: true, startWorker: false });
  before(() => {
    writeFileSync(
      configPath,
      JSON.stringify({
        mcpServers: {
          fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fx.jsonl') } },
          ghost: { command: ['/nonexistent/bin/mcp-server-ghost'] },
          ...options.extraServers,
        },
      }),
    );
  });
  const state = {
    get env(): TestWorkflowEnvironment {
      return suite.env;
    },
    get cliEnv(): Record<string, string> {
      return { TEMPORAL_ADDRESS: suite.env.address, DURABLE_MCP_TASK_QUEUE: suite.taskQueue };
    },
    workers,
    startWorkerProcess: async (): Promise<SpawnedProcess> => {
      const w = spawnNode([cli, 'worker', '--mcp-config', configPath], state.cliEnv);
      workers.push(w);
      await w.waitFor(/task queue/, 60_000);
      return w;
    },
  };
  return state;
}
