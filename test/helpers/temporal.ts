/**
 * The tests' Temporal servers and workers, on the project's own kit (`createTestEnvironment`, durable-mcp/testing):
 * `testEnvironment` (one test's environment, `await using`) and `suiteEnvironment` (a suite's, in its before/after) add
 * what the repository's suites need (the stdio fixture server's config, the dev server's metrics, the no-cache mode of
 * the fault suite). A suite that needs a second worker on the same server adds it with `startWorker(t.env, …)`.
 *
 * Layout: every helper of the tests lives in test/helpers (this file; cli.ts, the CLI's runner and harness; mcp.ts,
 * processes and fixture events of the MCP tests; watch.ts, history.ts, oauth.ts, …). test/fixtures holds the peers the
 * tests run against (the MCP servers, the OAuth provider, the workflows modules bundled by a worker) and their paths.
 */
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Next, WorkflowClientInterceptor, WorkflowQueryInput } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { createTestEnvironment, type DurableMcpTestEnvironment, type TestEnvironmentOptions } from '../../src/testing/environment.js';
import { type EncryptionCodec, resolveEncryption } from '../../src/codec/index.js';
import type { DurableMcpClient, StartToolCallOptions } from '../../src/client/index.js';
import { installQuietRuntime, startTemporalServer, type TestLogLevel } from '../../src/testing/temporal-server.js';
import { createWorker, type CreateWorkerOptions, type DurableMcpWorker } from '../../src/worker.js';
import { mcpToolCall, type McpToolCallInput } from '../../src/workflows/index.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { scratchDir } from './scratch.js';
import { metricsFlags } from './server-metrics.js';

/** Keep the SDK's logs to warnings and errors (TEST_LOG_LEVEL overrides), so test output stays readable. */
export function quietRuntime(): void {
  installQuietRuntime(process.env.TEST_LOG_LEVEL as TestLogLevel | undefined);
}

/**
 * Install this process's Temporal runtime at DEBUG, keeping every log line (workflow, activity and worker logs at DEBUG,
 * Core's at INFO) in the returned array for the test to search; errors are also printed. Call it before any environment.
 */
export function captureRuntimeLogs(): LogEntry[] {
  const logged: LogEntry[] = [];
  Runtime.install({
    logger: new DefaultLogger('DEBUG', (entry) => {
      logged.push(entry);
      if (entry.level === 'ERROR') process.stderr.write(`[sdk ${entry.level}] ${entry.message}\n`);
    }),
    telemetryOptions: { logging: { filter: { core: 'INFO', other: 'INFO' }, forward: {} } },
    shutdownSignals: [],
  });
  return logged;
}

/** A log line as text: its message and meta (cycles, e.g. the worker options it logs at start, cut). */
export function logText(e: LogEntry): string {
  const seen = new WeakSet<object>();
  const meta = JSON.stringify(e.meta ?? {}, (_k, v: unknown) => {
    if (typeof v === 'bigint') return String(v);
    if (v !== null && typeof v === 'object') {
      if (seen.has(v)) return '[cycle]';
      seen.add(v);
    }
    return v;
  });
  return `${e.message} ${meta}`;
}

/** DURABLE_MCP_TEST_NO_CACHE=1: the fault suite's F5b runs the integration tests with the workflow cache disabled. */
export const noCacheMode = (): boolean => process.env.DURABLE_MCP_TEST_NO_CACHE === '1';

/**
 * In no-cache mode the dev server gives a workflow task 3 s instead of 10 (`history.defaultWorkflowTaskTimeout`: every
 * start that sets no timeout of its own, children and continue-as-new included; durable-mcp sets none). Temporal Core
 * drops a real workflow task buffered while it evicts the run (the bug OneQueryAtATime works around for queries;
 * scripts/upstream/UPSTREAM.md), and the server hands that task out again only after its timeout: 25 parallel calls
 * whose `elicit` updates arrive together lost 3 tasks in one run here (33.7 s for that test), and CI's fault sample
 * once ran past its whole budget. A replay of the longest history of these tests takes well under a second.
 */
export const NO_CACHE_TASK_TIMEOUT = '3s';

/**
 * How often `eventually` and `waitForPending` ask again: 100 ms, or 500 ms in no-cache mode, where every query replays
 * the whole history and then evicts the run, and a query polled every 100 ms beside 25 arriving `elicit` updates made
 * Core drop 2-3 real tasks per run of the pipeline tests (none in two runs at 500 ms).
 */
export const pollEveryMs = (): number => (noCacheMode() ? 500 : 100);
export const noCacheServerArgs = (): string[] =>
  noCacheMode() ? ['--dynamic-config-value', `history.defaultWorkflowTaskTimeout="${NO_CACHE_TASK_TIMEOUT}"`] : [];

/**
 * Workaround for a Temporal Core bug with `maxCachedWorkflows: 0` (scripts/upstream/UPSTREAM.md, reproduced
 * by scripts/upstream/query-dropped-cache0.ts): when two query tasks for one run are buffered while Core evicts
 * the run, it answers the first and drops the rest ("There were leftover buffered tasks when evicting run"),
 * and the dropped query fails at its deadline. A test watching `pending` while it queries the same workflow
 * sends two at once, so in no-cache mode the test client sends one query per workflow at a time (the next
 * waits for the previous answer). Every query still gets its own answer or its own error.
 */
export class OneQueryAtATime implements WorkflowClientInterceptor {
  private readonly tails = new Map<string, Promise<void>>();

  query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    const key = input.workflowExecution.workflowId;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const mine = previous.then(() => next(input));
    // The queue only orders the queries: whatever this query's outcome, the next one may go. The caller
    // awaits `mine` and sees its answer or its error.
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return mine;
  }
}

/**
 * A local dev server. Its client encrypts with `encryption`, default the keys of DURABLE_MCP_ENCRYPTION_KEYS (none when
 * unset; workers started with `startWorker` take the same default), so the suites can run encrypted.
 */
export async function createLocalEnv(
  opts: { searchAttributes?: boolean; dbFilename?: string; encryption?: EncryptionCodec | false; serverArgs?: string[] } = {},
): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const encryption = resolveEncryption(opts.encryption);
  return startTemporalServer({
    ...(encryption ? { encryption } : {}),
    ...(noCacheMode() ? { client: { interceptors: { workflow: [new OneQueryAtATime()] } } } : {}),
    dbFilename: opts.dbFilename,
    searchAttributes: opts.searchAttributes,
    serverArgs: [...noCacheServerArgs(), ...(opts.serverArgs ?? [])],
  });
}

/** A temp folder of this test process, removed when it exits (./scratch.ts). */
export function tempDir(prefix = 'durable-mcp-test-'): string {
  return scratchDir(prefix);
}

/** An MCP config with the stdio fixture server (and optional extra servers). */
export function fixtureConfig(logPath: string, extra: Record<string, unknown> = {}, fx: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mcpServers: {
      fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: logPath }, ...fx },
      ...extra,
    },
  };
}

let queueCounter = 0;
export function uniqueTaskQueue(name = 'test'): string {
  return `${name}-${process.pid}-${++queueCounter}`;
}

/**
 * A worker on the test environment. With DURABLE_MCP_TEST_NO_CACHE=1 the workflow cache is disabled, so
 * every workflow task replays the whole history (the fault suite runs the integration tests that way).
 */
export async function startWorker(env: TestWorkflowEnvironment, options: Omit<CreateWorkerOptions, 'connection' | 'namespace'>): Promise<DurableMcpWorker> {
  const noCache = noCacheMode() ? { maxCachedWorkflows: 0 } : {};
  return createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    ...options,
    workerOptions: { ...noCache, ...options.workerOptions },
  });
}

/** Poll `fn` until it returns a truthy value (real time; for conditions, not for measuring). */
export async function eventually<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 60_000, everyMs = pollEveryMs()): Promise<NonNullable<T>> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Start these tool calls, 20 at a time, each released while it waits (`holdFor` 1 ms: nothing is held), and return their
 * workflow ids in the order given. The caller waits for what it needs to see (visibility's count, a listing).
 */
export async function startWaitingCalls(dmc: DurableMcpClient, calls: StartToolCallOptions[], lanes = 20): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < calls.length; i += lanes) {
    const batch = calls.slice(i, i + lanes);
    ids.push(...(await Promise.all(batch.map(async (c) => (await dmc.startToolCall({ elicitation: { holdFor: 1 }, ...c })).workflowId))));
  }
  return ids;
}

export interface TestEnvOptions extends Omit<TestEnvironmentOptions, 'mcpConfig' | 'servers' | 'logLevel'> {
  /** Names the task queue (`uniqueTaskQueue(name)`) unless `taskQueue` is given. */
  name?: string;
  /** The worker's MCP config. Default: the stdio fixture server `fx` (`fixtureConfig`), logging to `logPath`. */
  mcpConfig?: Record<string, unknown>;
  /** MCP servers beside the fixture server `fx` (with the default config). */
  extraServers?: Record<string, unknown>;
  /** More fields of the fixture server's entry (e.g. `maxSessions`). */
  fx?: Record<string, unknown>;
  /** More top-level fields of the default config (e.g. `notify`). */
  configFields?: Record<string, unknown>;
  /** The fixture server's event log (default: a new file in a temp folder). */
  logPath?: string;
  /** Serve the dev server's own metrics on a free port (`metricsPort`, ./server-metrics.ts). */
  metrics?: boolean;
}

export interface TestEnv extends DurableMcpTestEnvironment {
  /** The fixture server's event log (one JSON line per event). */
  readonly logPath: string;
  /** The dev server's metrics port (with `metrics: true`). */
  readonly metricsPort: number;
}

/**
 * The tests' fixture: `createTestEnvironment` (durable-mcp/testing) with what the repository's suites add: the stdio
 * fixture server's config, TEST_LOG_LEVEL, the dev server's metrics, and the no-cache mode of the fault suite
 * (DURABLE_MCP_TEST_NO_CACHE=1: no workflow cache, one query per workflow at a time, see OneQueryAtATime). Search
 * attributes are registered only when asked (`searchAttributes: true`).
 */
export async function testEnvironment(options: TestEnvOptions = {}): Promise<TestEnv> {
  const { name, mcpConfig, extraServers, fx, configFields, metrics, logPath: givenLog, ...rest } = options;
  const logPath = givenLog ?? join(tempDir(), 'fixture.jsonl');
  const served = metrics ? await metricsFlags() : undefined;
  const noCache = noCacheMode();
  // (The time-skipping server takes no flags: it ignores these.)
  const serverArgs = [...noCacheServerArgs(), ...(served?.serverArgs ?? []), ...(rest.serverArgs ?? [])];
  const t = await createTestEnvironment({
    ...rest,
    taskQueue: rest.taskQueue ?? uniqueTaskQueue(name),
    searchAttributes: rest.searchAttributes ?? false,
    logLevel: process.env.TEST_LOG_LEVEL as TestLogLevel | undefined,
    mcpConfig: mcpConfig ?? { ...fixtureConfig(logPath, extraServers, fx), ...configFields },
    ...(serverArgs.length ? { serverArgs } : {}),
    ...(noCache ? { clientInterceptors: { workflow: [new OneQueryAtATime()] } } : {}),
    workerOptions: { ...(noCache ? { maxCachedWorkflows: 0 } : {}), ...rest.workerOptions },
  });
  return Object.defineProperties(t, {
    logPath: { value: logPath, enumerable: true },
    metricsPort: {
      enumerable: true,
      get() {
        if (!served) throw new Error('testEnvironment: metricsPort is served only with the option metrics: true');
        return served.port;
      },
    },
  }) as TestEnv;
}

/** Start an `mcpToolCall` of `input` on the environment's task queue, its workflow id `<prefix>-<random>`. */
export function startToolCall(t: DurableMcpTestEnvironment, prefix: string, input: McpToolCallInput) {
  return t.env.client.workflow.start(mcpToolCall, { taskQueue: t.taskQueue, workflowId: `${prefix}-${Math.random().toString(36).slice(2)}`, args: [input] });
}

/** Close each of `things` in turn, skipping those not opened (yet): a suite's `after`. */
export async function closeAll(...things: Array<{ close(): Promise<unknown> } | undefined>): Promise<void> {
  for (const thing of things) await thing?.close();
}

/**
 * `testEnvironment(options)` for a whole suite: started in the suite's `before`, torn down (worker drained, every MCP
 * server closed, Temporal server stopped) in its `after`. Its fields read through to the environment once `before` ran.
 */
export function suiteEnvironment(options: TestEnvOptions = {}): TestEnv {
  const taskQueue = options.taskQueue ?? uniqueTaskQueue(options.name);
  const logPath = options.logPath ?? join(tempDir(), 'fixture.jsonl');
  let current: TestEnv | undefined;
  before(async () => {
    current = await testEnvironment({ ...options, taskQueue, logPath });
  });
  after(async () => {
    await current?.teardown();
  });
  return new Proxy({ taskQueue, logPath } as TestEnv, {
    get(known, key) {
      if (key in known) return known[key as keyof TestEnv];
      if (!current) throw new Error(`suiteEnvironment: ${String(key)} is only available once the suite's before hook ran`);
      return current[key as keyof TestEnv];
    },
  });
}
