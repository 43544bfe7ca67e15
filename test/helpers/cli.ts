import { execFile, spawn } from 'node:child_process';
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

/**
 * A `dev` process (`spawn` starts one) once it prints `ready`. The dev server also binds ports of its own choosing (an
 * HTTP API, metrics); another test's server (files run two at a time) can take one in between: such a start is tried
 * again, three times in all.
 */
export async function startDevRetrying(spawn: () => SpawnedProcess, ready: RegExp, timeoutMs = 90_000): Promise<SpawnedProcess> {
  for (let attempt = 1; ; attempt++) {
    const dev = spawn();
    try {
      await dev.waitFor(ready, timeoutMs);
      return dev;
    } catch (err) {
      await dev.kill('SIGKILL');
      if (attempt >= 3 || !/address already in use/.test(dev.output())) throw err;
    }
  }
}

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
    configPath,
    /** A worker process with the harness's MCP config (and `env` besides the Temporal address and task queue). */
    startWorkerProcess: async (env: Record<string, string | undefined> = {}): Promise<SpawnedProcess> => {
      const w = spawnNode([cli, 'worker', '--mcp-config', configPath], { ...state.cliEnv, ...env });
      workers.push(w);
      await w.waitFor(/task queue/, 60_000);
      return w;
    },
  };
  return state;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Run the CLI on a pseudo-terminal (util-linux `script`), so that its stdout and stderr are TTYs. */
export function runOnTerminal(args: string[], env: Record<string, string>) {
  const command = [process.execPath, cli, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env, TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    for (const w of waiters) w();
  });
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern: RegExp): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        void exited.then(() => {
          if (waiters.delete(check)) reject(new Error(`exited before ${pattern}; output:\n${JSON.stringify(out)}`));
        });
        check();
      });
    },
  };
}
