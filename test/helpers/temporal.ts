/**
 * The tests' Temporal servers and workers, built on the testing kit's server (src/testing/temporal-server.ts):
 * the CLI dev server and the Java time-skipping test server, never downloaded, plus what the repository's
 * suites add (the stdio fixture server's config, the no-cache mode of the fault suite, suite hooks).
 */
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Next, WorkflowClientInterceptor, WorkflowQueryInput } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { type EncryptionCodec, resolveEncryption } from '../../src/codec/index.js';
import type { DurableMcpClient, StartToolCallOptions } from '../../src/client/index.js';
import { installQuietRuntime, startTemporalServer, type TestLogLevel } from '../../src/testing/temporal-server.js';
import { createWorker, type CreateWorkerOptions, type DurableMcpWorker } from '../../src/worker.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { scratchDir } from './scratch.js';
import { metricsFlags } from './server-metrics.js';

/** Keep the SDK's logs to warnings and errors (TEST_LOG_LEVEL overrides), so test output stays readable. */
export function quietRuntime(): void {
  installQuietRuntime(process.env.TEST_LOG_LEVEL as TestLogLevel | undefined);
}

/** The environment's client encrypts with `encryption`, default the keys of DURABLE_MCP_ENCRYPTION_KEYS (none when unset). */
export async function createTimeSkippingEnv(opts: { encryption?: EncryptionCodec | false } = {}): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const encryption = resolveEncryption(opts.encryption);
  return startTemporalServer({ timeSkipping: true, ...(encryption ? { encryption } : {}) });
}

/** DURABLE_MCP_TEST_NO_CACHE=1: the fault suite's F5b runs the integration tests with the workflow cache disabled. */
export const noCacheMode = (): boolean => process.env.DURABLE_MCP_TEST_NO_CACHE === '1';

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
    ...(opts.serverArgs ? { serverArgs: opts.serverArgs } : {}),
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
export async function eventually<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 60_000, everyMs = 100): Promise<NonNullable<T>> {
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

export interface SuiteWorker {
  /** The dev server (set in the suite's `before`). */
  readonly env: TestWorkflowEnvironment;
  /** The worker polling `taskQueue`, with the fixture MCP server `fx` (and any extra servers). */
  readonly worker: DurableMcpWorker;
  readonly taskQueue: string;
  /** The fixture server's event log (one JSON line per event). */
  readonly logPath: string;
  /** The dev server's metrics port (./server-metrics.ts). */
  readonly metricsPort: number;
}

/**
 * Registers the suite's `before`/`after`: a dev server and a worker with the stdio fixture server, shut
 * down (worker drained, every MCP server closed, server stopped) after the suite.
 */
export function suiteWorker(options: {
  name: string;
  searchAttributes?: boolean;
  extraServers?: Record<string, unknown>;
  /** The worker's session pool options (e.g. `idleTimeoutMs: 0`: every lease a fresh session). */
  pool?: CreateWorkerOptions['pool'];
}): SuiteWorker {
  const state: { env?: TestWorkflowEnvironment; worker?: DurableMcpWorker; running?: Promise<void>; metricsPort?: number } = {};
  const taskQueue = uniqueTaskQueue(options.name);
  const logPath = join(tempDir(), 'fixture.jsonl');
  before(async () => {
    const metrics = await metricsFlags();
    state.metricsPort = metrics.port;
    state.env = await createLocalEnv({ searchAttributes: options.searchAttributes, serverArgs: metrics.serverArgs });
    state.worker = await startWorker(state.env, {
      taskQueue,
      mcpConfig: fixtureConfig(logPath, options.extraServers),
      ...(options.pool ? { pool: options.pool } : {}),
    });
    state.running = state.worker.run();
  });
  after(async () => {
    state.worker?.shutdown();
    await state.running;
    await state.env?.teardown();
  });
  const must = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`suiteWorker: ${what} is only available once the suite's before hook ran`);
    return v;
  };
  return {
    get env() {
      return must(state.env, 'env');
    },
    get worker() {
      return must(state.worker, 'worker');
    },
    get metricsPort() {
      return must(state.metricsPort, 'metricsPort');
    },
    taskQueue,
    logPath,
  };
}
