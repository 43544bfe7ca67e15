/**
 * What every benchmark starts with: the `Benchmark` shape, workflow ids and task queues, the tool-call inputs,
 * a Temporal dev server (the testing kit's, src/testing/temporal-server.ts), and the fixture MCP servers.
 * The fixture servers are spawned by their compiled paths (dist/test/fixtures/server.js and modern-server.js);
 * nothing else of test/ is imported. Each piece registers its clean-up.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFixtureLog } from '../scripts/fixture-log.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ToolResult } from '../src/contract/index.js';
import { EncryptionCodec } from '../src/codec/index.js';
import { installQuietRuntime, startTemporalServer } from '../src/testing/temporal-server.js';
import { mcpToolCall } from '../src/workflows/index.js';
import { awaitingInputKey } from '../src/workflows/visibility.js';
import type { McpToolCallInput } from '../src/workflows/mcp-tool-call.js';
import { now, runLanes, sleep, startWorkerProcess, type BenchResult, type Cleanup } from './lib.js';
import { childPids, livePids } from '../scripts/processes.js';

export interface Benchmark {
  id: string;
  name: string;
  /** Budget in seconds at BENCH_SCALE=1 (the run fails the benchmark past 3× its budget, scaled). */
  budgetS: number;
  run(cleanup: Cleanup): Promise<BenchResult[]>;
}

// ---- ids and inputs ----

/** `elicitation.holdFor` of a call that waits inline (longer than any benchmark). */
export const HOLD_LONG = 10 * 60 * 1000;
let seq = 0;
export const wid = (prefix: string): string => `bench-${prefix}-${process.pid}-${++seq}`;
export const taskQueueFor = (id: string): string => `bench-${id}-${process.pid}-${Date.now()}`;

export function expectOutput(result: ToolResult, output: string, what: string): void {
  if (result.isError || result.output !== output) throw new Error(`${what}: unexpected tool result ${JSON.stringify(result)}`);
}

export async function callTool(client: Client, taskQueue: string, input: McpToolCallInput, prefix: string): Promise<WorkflowHandle<typeof mcpToolCall>> {
  return client.workflow.start(mcpToolCall, { taskQueue, workflowId: wid(prefix), args: [input] });
}

/**
 * Start `n` calls (20 at a time) with the search attribute, as the client helpers do (the host only keeps it up to date
 * then), and wait until visibility counts every workflow of the task queue awaiting input: `expected` of them, default
 * the count before these started plus `n` (a count of `n` alone would be reached while calls started before these were
 * still counted and up to that many of these were not: B7's second round at 10,000 once listed 9,274 that way). Throws
 * after `deadlineMs`. `input` is every call's, or the i-th call's. `progress` is told the count every 15 s; `deadline`
 * (a Date.now() instant) is returned for the checks that follow. B3 and B3m measure a worker's memory with this many
 * requests waiting.
 */
export async function startAwaitingInput(
  client: Client,
  options: {
    taskQueue: string;
    n: number;
    prefix: string;
    input: McpToolCallInput | ((i: number) => McpToolCallInput);
    deadlineMs: number;
    expected?: number;
    progress?: (count: number, elapsedS: number) => void;
  },
): Promise<{ handles: Array<WorkflowHandle<typeof mcpToolCall>>; startS: number; tStart: number; deadline: number; waitS: number }> {
  const { taskQueue, n, input } = options;
  const countQuery = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running" AND DurableMcpAwaitingInput = true`;
  const expected = options.expected ?? (await client.workflow.count(countQuery)).count + n;
  const handles: Array<WorkflowHandle<typeof mcpToolCall>> = [];
  const tStart = now();
  await runLanes(n, 20, async (i) => {
    handles.push(
      await client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: wid(options.prefix),
        args: [typeof input === 'function' ? input(i) : input],
        typedSearchAttributes: [{ key: awaitingInputKey, value: false }],
      }),
    );
  });
  const startS = (now() - tStart) / 1000;
  const deadline = Date.now() + options.deadlineMs;
  let lastLog = Date.now();
  for (;;) {
    const { count } = await client.workflow.count(countQuery);
    if (count >= expected) break;
    if (options.progress && Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      options.progress(count, Math.round((now() - tStart) / 1000));
    }
    if (Date.now() > deadline) throw new Error(`only ${count} of ${expected} workflows awaiting input after ${Math.round((now() - tStart) / 1000)} s`);
    await sleep(1000);
  }
  return { handles, startS, tStart, deadline, waitS: (now() - tStart) / 1000 - startS };
}

export const echoInput: McpToolCallInput = { server: 'fx', tool: 'echo', arguments: { text: 'x' } };
export const askInput = (holdFor: number, heartbeatTimeout?: number): McpToolCallInput => ({
  server: 'fx',
  tool: 'ask_name',
  elicitation: { holdFor },
  ...(heartbeatTimeout ? { heartbeatTimeout } : {}),
});

// ---- the Temporal dev server ----

/**
 * A Temporal dev server for one benchmark (SDK logs at WARN), torn down by `cleanup`. With DURABLE_MCP_ENCRYPTION_KEYS set
 * (or `encryption`), its client encrypts payloads, as do the worker processes it spawns (they inherit the environment).
 */
export async function startDevServer(
  cleanup: Cleanup,
  options: { searchAttributes?: boolean; encryption?: EncryptionCodec | false; serverArgs?: string[] } = {},
): Promise<TestWorkflowEnvironment> {
  const encryption = options.encryption === false ? undefined : (options.encryption ?? EncryptionCodec.fromEnv());
  installQuietRuntime();
  const env = await startTemporalServer({
    searchAttributes: options.searchAttributes,
    ...(encryption ? { encryption } : {}),
    ...(options.serverArgs ? { serverArgs: options.serverArgs } : {}),
  });
  cleanup.defer('Temporal dev server', () => env.teardown());
  return env;
}

// ---- the fixture MCP servers (spawned by path) ----

/** The compiled stdio fixture server (test/fixtures/server.ts). */
export const fixtureServerPath: string = fileURLToPath(new URL('../test/fixtures/server.js', import.meta.url));
/** The compiled modern-era (MCP 2026-07-28, SDK v2) fixture server (test/fixtures/modern-server.ts). */
export const modernServerPath: string = fileURLToPath(new URL('../test/fixtures/modern-server.js', import.meta.url));

/** A fixture MCP config (stdio fixture server `fx` logging to its own file) written to a temp dir. */
export function fixtureSetup(prefix: string, fx: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), `durable-mcp-bench-${prefix}-`));
  const logPath = join(dir, 'fixture.jsonl');
  const config = { mcpServers: { fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: logPath }, ...fx } } };
  const configPath = join(dir, 'mcp.json');
  writeFileSync(configPath, JSON.stringify(config));
  return { dir, logPath, config, configPath };
}

/** Fixture server processes started for `logPath` (every one logs `initialized`) that are still alive. */
export function liveFixturePids(logPath: string): number[] {
  const ours = new Set(readFixtureLog(logPath).map((e) => e.pid as number));
  return livePids(fixtureServerPath).filter((p) => ours.has(p));
}

/**
 * Registers a check that no fixture server of `logPath` outlives the benchmark; kills (by pid) and reports
 * any. Removes the benchmark's temp dir (config and fixture log) when none is left.
 */
export function deferFixtureCheck(cleanup: Cleanup, logPath: string, details: Record<string, number | string>): void {
  cleanup.defer('fixture server processes', async () => {
    let left = liveFixturePids(logPath);
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await sleep(250);
      left = liveFixturePids(logPath);
    }
    if (left.length === 0) rmSync(dirname(logPath), { recursive: true, force: true });
    if (left.length > 0) {
      details.leftoverMcpServers = left.length;
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      throw new Error(`${left.length} MCP server process(es) outlived the benchmark (killed: ${left.join(', ')})`);
    }
  });
}

/** Live MCP fixture server processes that are children of `pid`. */
export function fixtureChildren(pid: number): number[] {
  const fixtures = new Set(livePids(fixtureServerPath));
  return childPids(pid).filter((p) => fixtures.has(p));
}

/** The MCP server's own view of its last elicitation: from sending `elicitation/create` to receiving the result (ms). */
export function lastElicitationRoundTrip(logPath: string, tool = 'ask_name'): number {
  const log = readFixtureLog(logPath).filter((e) => e.tool === tool && (e.event === 'asked' || e.event === 'received'));
  const received = log.at(-1);
  const asked = log.at(-2);
  if (!received || !asked || received.event !== 'received' || asked.event !== 'asked' || received.pid !== asked.pid) {
    throw new Error(`the fixture log has no asked → received pair for ${tool} at its end`);
  }
  return (received.hr as number) - (asked.hr as number);
}

export function countEvents(logPath: string) {
  const log = readFixtureLog(logPath);
  return {
    sessions: log.filter((e) => e.event === 'initialized').length,
    askCalls: log.filter((e) => e.event === 'call' && e.tool === 'ask_name').length,
    echoCalls: log.filter((e) => e.event === 'call' && e.tool === 'echo').length,
  };
}

// ---- what the benchmarks start with ----

/**
 * What B1–B4 start with: the fixture server's config and log, a dev server (torn down last), and the check
 * that no fixture server outlives the benchmark (its findings land in `details`).
 */
export async function benchSetup(cleanup: Cleanup, prefix: string, envOptions: { searchAttributes?: boolean } = {}) {
  const fx = fixtureSetup(prefix);
  const env = await startDevServer(cleanup, envOptions);
  const details: Record<string, number | string> = {};
  deferFixtureCheck(cleanup, fx.logPath, details);
  return { fx, env, details };
}

/**
 * What B6, B3m and B7 start with: a dev server, a worker process, and the modern fixture server (stdio) as server `m`,
 * and as each of `moreServers` too (same server, its own log), e.g. for a filter by server.
 */
export async function modernSetup(cleanup: Cleanup, prefix: string, envOptions: { searchAttributes?: boolean } = {}, moreServers: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), `durable-mcp-bench-${prefix}-`));
  const logPath = join(dir, 'modern.jsonl');
  const configPath = join(dir, 'mcp.json');
  const server = (log: string) => ({ command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: log } });
  const mcpServers = Object.fromEntries([['m', server(logPath)], ...moreServers.map((name) => [name, server(join(dir, `${name}.jsonl`))])]);
  writeFileSync(configPath, JSON.stringify({ mcpServers }));
  const env = await startDevServer(cleanup, envOptions);
  const taskQueue = taskQueueFor(prefix);
  const worker = await startWorkerProcess(cleanup, { address: env.address, taskQueue, configPath });
  const modernChildren = () => {
    const live = new Set(livePids(modernServerPath));
    return childPids(worker.pid).filter((p) => live.has(p));
  };
  return { env, worker, taskQueue, logPath, modernChildren };
}
