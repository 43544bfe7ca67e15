/**
 * The benchmarks' measuring tools: statistics, the result shape, clean-up, the worker and holder processes,
 * RSS, the answering bots, lanes, and the machine the run is on. (Their setup: bench/setup.ts.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WithStartWorkflowOperation, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { McpToolCallInput } from '../src/workflows/mcp-tool-call.js';
import { findTemporalBinary } from '../src/cli/temporal-binaries.js';
import { pendingQuery, submitAnswerUpdate, waitForPendingUpdate } from '../src/workflows/messages.js';
import { spawnNode, type SpawnedProcess } from '../scripts/processes.js';

/** MALLOC_ARENA_MAX of every worker process a benchmark starts (the report states the value used). */
export const workerMallocArenaMax = process.env.MALLOC_ARENA_MAX ?? '2';

/**
 * BENCH_WORKER_NODE_ARGS: extra Node options for every worker process (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them (NODE_OPTIONS does not take --cpu-prof).
 */
const workerNodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

export const workerEntry = fileURLToPath(new URL('../src/cli/worker-command.js', import.meta.url));
export const benchWorkerEntry = fileURLToPath(new URL('./worker-process.js', import.meta.url));

export const now = (): number => performance.now();
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** BENCH_SCALE (default 1) scales every sample count. */
export const SCALE = (() => {
  const v = Number(process.env.BENCH_SCALE ?? '1');
  return Number.isFinite(v) && v > 0 ? v : 1;
})();
export const scaled = (n: number, min = 1): number => Math.max(min, Math.round(n * SCALE));

// ---- statistics ----

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}
export const p50 = (v: number[]): number => percentile(v, 50);
export const p95 = (v: number[]): number => percentile(v, 95);
export const round = (v: number, digits = 2): number => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

// ---- results ----

export interface BenchResult {
  id: string;
  name: string;
  /** What was measured, with units in the keys. */
  measured: Record<string, number | string>;
  /** The baseline measured in the same run. */
  baseline: Record<string, number | string>;
  /** The figure compared with the target (a ratio against the baseline). */
  ratio: number | null;
  ratioLabel: string;
  target: string;
  met: boolean | null;
  /** What exactly was measured (for docs/benchmarks.md). */
  note: string;
  /** Extra observations (counts, leftovers, anomalies). */
  details: Record<string, number | string>;
  samples: number;
  seconds: number;
  error?: string;
}

export function errorResult(id: string, name: string, err: unknown, seconds: number): BenchResult {
  return {
    id,
    name,
    measured: {},
    baseline: {},
    ratio: null,
    ratioLabel: '',
    target: '',
    met: null,
    note: '',
    details: {},
    samples: 0,
    seconds,
    error: (err as Error)?.stack ?? String(err),
  };
}

// ---- clean-up ----

/** Clean-ups registered by a benchmark, run in reverse order even if the benchmark fails or times out. */
export class Cleanup {
  private readonly fns: Array<{ what: string; fn: () => unknown }> = [];
  readonly problems: string[] = [];
  defer(what: string, fn: () => unknown): void {
    this.fns.push({ what, fn });
  }
  async run(): Promise<void> {
    while (this.fns.length > 0) {
      const { what, fn } = this.fns.pop()!;
      try {
        await withTimeout(Promise.resolve().then(fn), 30_000, `clean-up "${what}"`);
      } catch (err) {
        this.problems.push(`${what}: ${(err as Error).message}`);
      }
    }
  }
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface WorkerProcess {
  proc: SpawnedProcess;
  pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Start a worker process (`node <entry> --mcp-config <path>`) and wait until it says it is ready. */
export async function startWorkerProcess(
  cleanup: Cleanup,
  opts: { entry?: string; address: string; taskQueue: string; configPath: string; ready?: RegExp; env?: Record<string, string>; args?: string[] },
): Promise<WorkerProcess> {
  const entry = opts.entry ?? workerEntry;
  const proc = spawnNode([...workerNodeArgs, entry, '--mcp-config', opts.configPath, ...(opts.args ?? [])], {
    TEMPORAL_ADDRESS: opts.address,
    TEMPORAL_NAMESPACE: 'default',
    DURABLE_MCP_TASK_QUEUE: opts.taskQueue,
    // As the Docker image and `npm start` run the worker (see docs/operating.md, "Memory"): glibc's per-thread arenas
    // otherwise keep growing RSS with every tool call's allocations on Temporal's and libuv's threads.
    MALLOC_ARENA_MAX: workerMallocArenaMax,
    ...opts.env,
  });
  const stop = async (graceMs = 20_000): Promise<number | null> => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.exited;
    proc.child.kill('SIGTERM');
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
    try {
      return await proc.exited;
    } finally {
      clearTimeout(timer);
    }
  };
  cleanup.defer(`worker process ${proc.child.pid}`, () => stop());
  await proc.waitFor(opts.ready ?? (entry === workerEntry ? /durable-mcp worker: Temporal/ : /bench worker: ready/), 120_000);
  return { proc, pid: proc.child.pid!, stop };
}

/** Run a worker made in this process until the benchmark's clean-up, which shuts it down and waits for it. */
export function runInProcess(cleanup: Cleanup, what: string, worker: Worker): void {
  const running = worker.run();
  cleanup.defer(what, async () => {
    worker.shutdown();
    await running;
  });
}

export const holderEntry = fileURLToPath(new URL('./holder-process.js', import.meta.url));

/** B1's floor holder (bench/holder-process.ts): `hold(workflowId)` resolves with its update's round trip in ms. */
export async function startHolderProcess(cleanup: Cleanup, address: string): Promise<{ hold(workflowId: string): Promise<number> }> {
  const child = spawn(process.execPath, [holderEntry], { env: { ...process.env, TEMPORAL_ADDRESS: address }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanup.defer(`holder process ${child.pid}`, async () => {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  const waiting = new Map<string, { resolve(ms: number): void; reject(err: Error): void }>();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'holder: ready') return ready();
    const msg = JSON.parse(line) as { id: string; ms?: number; error?: string };
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error !== undefined || msg.ms === undefined) w?.reject(new Error(`holder: ${msg.id}: ${msg.error}`));
    else w?.resolve(msg.ms);
  });
  void exited.then(() => {
    for (const w of waiting.values()) w.reject(new Error('holder process exited'));
  });
  await Promise.race([isReady, exited.then(() => Promise.reject(new Error('holder process exited before it was ready')))]);
  return {
    hold(workflowId: string): Promise<number> {
      return new Promise((resolve, reject) => {
        waiting.set(workflowId, { resolve, reject });
        child.stdin!.write(`${workflowId}\n`);
      });
    },
  };
}

/** Resident set size of a process in MiB (VmRSS from /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** A process's RSS in MiB as the median of five samples 200 ms apart (one sample is noisy). */
export async function steadyRssMiB(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMiB(pid));
    await sleep(200);
  }
  return p50(samples);
}

// ---- the bot ----

export interface BotAnswer {
  /** When the request first showed in `pending` (performance.now()). */
  seenAt: number;
  /** When the `submitAnswer` update returned. */
  answeredAt: number;
  polls: number;
}

/**
 * A bot that starts the call itself: the `mcpToolCall` start and its `waitForPending` update go in one
 * update-with-start request, so the update is handled in the workflow's first task (it can never arrive
 * between tasks and cost a task of its own). Then it answers with `submitAnswer`.
 */
export async function botStartAndAnswer(
  client: Client,
  start: { taskQueue: string; workflowId: string; input: McpToolCallInput },
  data: Record<string, unknown>,
  timeoutMs = 120_000,
): Promise<BotAnswer & { handle: WorkflowHandle }> {
  const startWorkflowOperation = new WithStartWorkflowOperation('mcpToolCall', {
    taskQueue: start.taskQueue,
    workflowId: start.workflowId,
    args: [start.input],
    workflowIdConflictPolicy: 'FAIL',
  });
  const pending = await client.workflow.executeUpdateWithStart(waitForPendingUpdate, { args: [{ timeoutMs }], startWorkflowOperation });
  const handle = await startWorkflowOperation.workflowHandle();
  if (pending.length === 0) throw new Error(`bot: no pending request on ${start.workflowId} after ${timeoutMs} ms`);
  const seenAt = now();
  await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: pending[0].id, ok: true, data }] });
  return { seenAt, answeredAt: now(), polls: 1, handle };
}

/**
 * The polling bot: poll the workflow's `pending` query every `pollMs` until a request shows, then answer it with
 * `data` through the `submitAnswer` update (which reports rejections).
 */
export async function botAnswer(handle: WorkflowHandle, data: Record<string, unknown>, pollMs: number, timeoutMs = 120_000): Promise<BotAnswer> {
  const deadline = Date.now() + timeoutMs;
  let polls = 0;
  let lastError: unknown;
  for (;;) {
    polls++;
    try {
      const pending = await handle.query(pendingQuery);
      if (pending.length > 0) {
        const seenAt = now();
        await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: pending[0].id, ok: true, data }] });
        return { seenAt, answeredAt: now(), polls };
      }
    } catch (err) {
      // Before its first workflow task a workflow cannot be queried yet; keep polling.
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(`bot: no pending request on ${handle.workflowId} after ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`);
    await sleep(pollMs);
  }
}

/** Run `fn(i)` for i in 0..count-1 with at most `lanes` at once. */
export async function runLanes(count: number, lanes: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, count) }, lane));
}

// ---- the machine ----

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  temporalCli: string;
  os: string;
  /** 1-minute load average when the run started (other work on the machine skews every figure). */
  loadAverage: number;
}

export function machine(): Machine {
  let temporalCli = 'unknown';
  try {
    const bin = findTemporalBinary('cli', { install: false, allowDownload: false });
    if (bin.path) {
      const r = spawnSync(bin.path, ['--version'], { encoding: 'utf8' });
      temporalCli = (r.stdout || r.stderr || '').trim() || 'unknown';
    }
  } catch (err) {
    temporalCli = `not found (${(err as Error).message.slice(0, 80)})`;
  }
  let osName = `${process.platform} ${process.arch}`;
  if (existsSync('/etc/os-release')) {
    const m = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m) osName = `${m[1]} (${process.platform} ${process.arch})`;
  }
  const cpuList = cpus();
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    node: process.version,
    temporalCli,
    os: osName,
    loadAverage: round(loadavg()[0], 2),
  };
}
