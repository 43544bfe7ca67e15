/**
 * Shared pieces of the fault suite: a seeded RNG, a Temporal dev server we spawn (and SIGKILL) ourselves,
 * MCP configs whose processes carry a tag, and process accounting by that tag.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/visibility.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { eventually } from '../helpers/temporal.js';
import { freePort } from '../helpers/ports.js';
export { freePort };

// ---------------------------------------------------------------------------
// Seeded randomness
// ---------------------------------------------------------------------------

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
export const randInt = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
/** A sub-seed for one case, so that cases do not disturb each other's sequences. */
export const subSeed = (seed: number, label: string): number => {
  let h = seed >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

// ---------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/** Reject if `p` does not settle within `ms` (the work itself is not cancelled: callers clean up). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Poll `fn` until it returns a truthy value; bounded. The tests' own `eventually`, polling a little slower. */
export function until<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 60_000, everyMs = 150): Promise<NonNullable<T>> {
  return eventually(fn, what, timeoutMs, everyMs);
}

export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------
// Processes, by tag
// ---------------------------------------------------------------------------

/**
 * Live processes (zombies excluded) whose command line or environment contains `tag`. Every process the
 * suite starts carries its case's tag: in a path on its command line (config, database), in a `--tag`
 * argument (fixture MCP servers), or in its environment (worker processes, spawned test runs).
 */
export function taggedPids(tag: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      let env = '';
      try {
        env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      } catch {
        // not readable: the command line must do
      }
      if (cmd.includes(tag) || env.includes(tag)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

export function describePid(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().slice(0, 160)}`;
  } catch {
    return `${pid} (gone)`;
  }
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Wait (bounded) until no tagged process is left, except `keep`; returns the leftovers (empty when clean). */
export async function leftovers(tag: string, keep: number[] = [], timeoutMs = 15_000): Promise<string[]> {
  const start = Date.now();
  for (;;) {
    const left = taggedPids(tag).filter((p) => !keep.includes(p));
    if (left.length === 0) return [];
    if (Date.now() - start > timeoutMs) return left.map(describePid);
    await sleep(200);
  }
}

// ---------------------------------------------------------------------------
// MCP configs with tagged fixture servers
// ---------------------------------------------------------------------------

export interface FixtureOptions {
  /** Extra fixture arguments (e.g. --crash-on-start). */
  args?: string[];
  /** The script (default: the fixture MCP server). */
  script?: string;
  /** Server config extras (e.g. timeout). */
  extra?: Record<string, unknown>;
  env?: Record<string, string>;
}

/** A stdio server entry running the fixture (or another script) with `--tag <tag>` and FIXTURE_LOG/FIXTURE_NAME. */
export function fixtureEntry(name: string, tag: string, logPath: string, opts: FixtureOptions = {}): Record<string, unknown> {
  return {
    command: [process.execPath, opts.script ?? fixtureServerPath, '--tag', tag, ...(opts.args ?? [])],
    env: { FIXTURE_LOG: logPath, FIXTURE_NAME: name, ...opts.env },
    ...opts.extra,
  };
}

export function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

// ---------------------------------------------------------------------------
// Temporal dev server, spawned by us
// ---------------------------------------------------------------------------

/**
 * `temporal server start-dev --db-filename <dir>/t.db --ip 127.0.0.1 --port P --ui-port U --headless`: a real
 * dev server with a SQLite file, so it can be SIGKILLed and started again on the same file and port.
 */
export class DevServer {
  child: ChildProcess | undefined;
  private out = '';
  readonly address: string;
  readonly dbFile: string;
  starts = 0;

  constructor(
    readonly dir: string,
    readonly port: number,
    readonly uiPort: number,
    private readonly tag: string,
  ) {
    mkdirSync(dir, { recursive: true });
    this.dbFile = join(dir, 't.db');
    this.address = `127.0.0.1:${port}`;
  }

  static async create(dir: string, tag: string): Promise<DevServer> {
    return new DevServer(dir, await freePort(), await freePort(), tag);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  output(): string {
    return this.out;
  }

  async start(timeoutMs = 60_000): Promise<void> {
    const bin = findTemporalBinary('cli', { allowDownload: false });
    this.starts++;
    const child = spawn(
      bin.path!,
      [
        'server',
        'start-dev',
        '--db-filename',
        this.dbFile,
        '--ip',
        '127.0.0.1',
        '--port',
        String(this.port),
        '--ui-port',
        String(this.uiPort),
        '--headless',
        '--log-level',
        'error',
        ...SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', `${a.name}=${a.type}`]),
        '--dynamic-config-value',
        'frontend.enableUpdateWorkflowExecution=true',
        '--dynamic-config-value',
        'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DURABLE_MCP_FAULT_TAG: this.tag } },
    );
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => (this.out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.out += d.toString()));
    const start = Date.now();
    let last: unknown;
    while (Date.now() - start < timeoutMs) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`temporal dev server exited (${child.exitCode ?? child.signalCode}):\n${this.out.slice(-1500)}`);
      }
      try {
        const c = await Connection.connect({ address: this.address, connectTimeout: '1s' });
        try {
          await c.withDeadline(Date.now() + 2000, () => c.workflowService.getSystemInfo({}));
          // The default namespace must be usable too (it is registered right after the frontend starts).
          await c.withDeadline(Date.now() + 2000, () => c.workflowService.describeNamespace({ namespace: 'default' }));
        } finally {
          await c.close();
        }
        return;
      } catch (err) {
        last = err;
        await sleep(250);
      }
    }
    throw new Error(`temporal dev server did not answer at ${this.address} within ${timeoutMs} ms: ${(last as Error)?.message}`);
  }

  /** Send a signal and wait (bounded) for the process to exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    try {
      await within(exited, timeoutMs, `temporal dev server exit after ${signal}`);
    } catch {
      child.kill('SIGKILL');
      await within(exited, 5000, 'temporal dev server exit after SIGKILL');
    }
  }

  async client(): Promise<{ client: Client; connection: Connection }> {
    const connection = await Connection.connect({ address: this.address });
    return { client: new Client({ connection, namespace: 'default' }), connection };
  }
}
