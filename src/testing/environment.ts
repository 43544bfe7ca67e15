/**
 * `createTestEnvironment(options)`: a Temporal test environment (the local dev server, or the time-skipping
 * test server) from the binaries this project finds offline, plus a durable-mcp worker running durable-mcp's
 * activities and your workflows on a task queue of its own. `teardown()` (or `await using`) stops the worker,
 * every MCP server process it started, the scripted servers and the Temporal server.
 */
import { randomUUID } from 'node:crypto';
import type { Client, ClientInterceptors } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, type BundlerPlugin } from '@temporalio/worker';
import { encodedFailureConverterPath, type EncryptionCodec, resolveEncryption } from '../codec/index.js';
import { DurableMcpClient } from '../client/index.js';
import type { McpConfig, PoolOptions } from '../mcp/index.js';
import { createWorker, type CreateWorkerOptions, type DurableMcpWorker } from '../worker.js';
import type { ScriptedServer } from './scripted.js';
import { installQuietRuntime, startTemporalServer, type TestLogLevel } from './temporal-server.js';

export interface TestEnvironmentOptions {
  /** The time-skipping test server (timers fire as soon as the workflow only waits on them). Default: the local dev server. */
  timeSkipping?: boolean;
  /** The MCP config, as the worker takes it (a config object, a parsed config, or a JSON file's path). */
  mcpConfig?: McpConfig | Record<string, unknown> | string;
  /** MCP servers added to the config by name: scripted servers (`scriptedServer(…)`) or config entries. Closed at teardown when scripted. */
  servers?: Record<string, ScriptedServer | Record<string, unknown>>;
  /** Your workflows module (it must also `export * from 'durable-mcp/workflows'`). Default: durable-mcp's own workflows. */
  workflowsPath?: string;
  /** Extra worker options (e.g. `maxCachedWorkflows: 0`). */
  workerOptions?: CreateWorkerOptions['workerOptions'];
  /** Session pool options of the worker. */
  pool?: PoolOptions;
  /** The worker's OpenTelemetry tracing (as `createWorker` takes it; default from the OTLP environment variables). */
  tracing?: CreateWorkerOptions['tracing'];
  /** Namespace (local dev server only; default `default`). */
  namespace?: string;
  /** Task queue (default: a fresh `durable-mcp-test-…` name). */
  taskQueue?: string;
  /** Register the `DurableMcpAwaitingInput` search attribute (local dev server only; default true). */
  searchAttributes?: boolean;
  /** Log level of the Temporal runtime, if this call installs it (default `WARN`). */
  logLevel?: TestLogLevel;
  /**
   * The payload codec of the environment's client and worker: default the keys of DURABLE_MCP_ENCRYPTION_KEYS (none when
   * unset), `false` for none. Histories then hold only ciphertext, as in production with a key set.
   */
  encryption?: EncryptionCodec | false;
  /** More flags for the local dev server, e.g. `['--metrics-port', '9090']` or `--dynamic-config-value` (local dev server only). */
  serverArgs?: string[];
  /** Start the worker now (default true); `false`: no worker until `startWorker()` (e.g. a test that runs worker processes). */
  startWorker?: boolean;
  /** Interceptors of the environment's client (`client`, `durable`). */
  clientInterceptors?: ClientInterceptors;
}

export interface DurableMcpTestEnvironment {
  /** The Temporal test environment (`env.client`, `env.nativeConnection`, `env.sleep`, `env.currentTimeMs`). */
  readonly env: TestWorkflowEnvironment;
  /** A Temporal client of the environment (with time skipping, awaiting a result skips time). */
  readonly client: Client;
  /** durable-mcp's client helpers on the same connection (pendingDetails, submit, accept, decline, cancelRequest, result). */
  readonly durable: DurableMcpClient;
  /** The payload codec of the client and the worker (undefined: payloads in plaintext). */
  readonly encryption?: EncryptionCodec;
  readonly taskQueue: string;
  readonly namespace: string;
  /** The running worker (a new one after `restartWorker()`). */
  readonly worker: DurableMcpWorker;
  /** Stop the worker (its waiting calls are released, its MCP server processes closed) and start a new one. */
  restartWorker(): Promise<void>;
  /** Stop the worker only (e.g. to answer while no worker runs); `startWorker()` starts it again. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** Stop everything: the worker, its MCP server processes, the scripted servers, the Temporal server. */
  teardown(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const isScripted = (s: unknown): s is ScriptedServer => !!s && typeof s === 'object' && 'config' in s && typeof (s as ScriptedServer).close === 'function';

function buildConfig(options: TestEnvironmentOptions): McpConfig | Record<string, unknown> | string {
  const extra = Object.entries(options.servers ?? {}).map(([name, s]) => [name, isScripted(s) ? s.config : s] as const);
  if (extra.length === 0) return options.mcpConfig ?? { mcpServers: {} };
  if (typeof options.mcpConfig === 'string')
    throw new TypeError('createTestEnvironment: "servers" cannot be combined with a config file path in "mcpConfig"; pass the config object instead');
  const base = (options.mcpConfig ?? {}) as Record<string, unknown>;
  const key = ['mcpServers', 'servers', 'mcp'].find((k) => k in base) ?? 'mcpServers';
  const entries = (base[key] ?? {}) as Record<string, unknown>;
  if (Object.values(entries).some((e) => !!e && typeof e === 'object' && 'transport' in e)) {
    throw new TypeError('createTestEnvironment: "servers" cannot be added to an already parsed config; pass "mcpConfig" as the raw config object');
  }
  return { ...base, [key]: { ...entries, ...Object.fromEntries(extra) } };
}

/** A Temporal test server, a durable-mcp worker and its MCP servers for your tests (`await using`; docs/testing.md). */
export async function createTestEnvironment(options: TestEnvironmentOptions = {}): Promise<DurableMcpTestEnvironment> {
  // Bad key material fails here, before a server starts.
  const encryption = resolveEncryption(options.encryption);
  installQuietRuntime(options.logLevel);
  const searchAttributes = options.searchAttributes ?? true;
  const mcpConfig = buildConfig(options);
  const scripted = Object.values(options.servers ?? {}).filter(isScripted);
  // Never a download when the binaries are here; a clear "what to install" when they are not.
  const env = await startTemporalServer({
    timeSkipping: options.timeSkipping,
    namespace: options.namespace,
    searchAttributes,
    allowDownload: false,
    ...(encryption ? { encryption } : {}),
    ...(options.serverArgs ? { serverArgs: options.serverArgs } : {}),
    ...(options.clientInterceptors ? { client: { interceptors: options.clientInterceptors } } : {}),
  });
  const namespace = env.namespace ?? options.namespace ?? 'default';
  // Your workflows are bundled once: the worker and every restart of it reuse the bundle.
  let workflowBundle: CreateWorkerOptions['workflowBundle'];
  if (options.workflowsPath) {
    try {
      workflowBundle = await bundleWorkflowCode({
        workflowsPath: options.workflowsPath,
        // With a codec, the workflows' failures are encoded too (as the worker's data converter says: dataConverterOf).
        ...(encryption ? { failureConverterPath: encodedFailureConverterPath } : {}),
        logger: new DefaultLogger('WARN'),
        // Your worker's plugins that prepare the bundle (e.g. @temporalio/ai-sdk's AiSdkPlugin and its polyfills), as Worker.create would.
        plugins: (options.workerOptions?.plugins ?? []).filter((p): p is BundlerPlugin => typeof (p as Partial<BundlerPlugin>).configureBundler === 'function'),
      });
    } catch (err) {
      await env.teardown();
      for (const s of scripted) await s.close();
      throw err;
    }
  }
  const taskQueue = options.taskQueue ?? `durable-mcp-test-${randomUUID().slice(0, 8)}`;
  let current: { worker: DurableMcpWorker; running: Promise<void> } | undefined;
  const start = async () => {
    if (current) return;
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace,
      taskQueue,
      mcpConfig,
      encryption: encryption ?? false,
      ...(options.pool ? { pool: options.pool } : {}),
      ...(options.tracing !== undefined ? { tracing: options.tracing } : {}),
      ...(workflowBundle ? { workflowBundle } : {}),
      ...(options.workerOptions ? { workerOptions: options.workerOptions } : {}),
    });
    current = { worker, running: worker.run() };
  };
  const stop = async () => {
    const c = current;
    if (!c) return;
    current = undefined;
    c.worker.shutdown();
    await c.running;
  };
  try {
    if (options.startWorker !== false) await start();
  } catch (err) {
    await env.teardown();
    for (const s of scripted) await s.close();
    throw err;
  }
  let tornDown: Promise<void> | undefined;
  const teardown = () => {
    tornDown ??= (async () => {
      const errors: unknown[] = [];
      for (const step of [stop, () => env.teardown(), ...scripted.map((s) => () => s.close())]) {
        try {
          await step();
        } catch (err) {
          errors.push(err);
        }
      }
      if (errors.length) throw new AggregateError(errors, `teardown: ${errors.map((e) => (e as Error).message).join('; ')}`);
    })();
    return tornDown;
  };
  return {
    env,
    client: env.client,
    durable: new DurableMcpClient(env.client, { taskQueue }),
    ...(encryption ? { encryption } : {}),
    taskQueue,
    namespace,
    get worker() {
      if (!current) throw new Error('the test environment has no running worker (startWorker: false, or stopWorker() was called; startWorker() starts one)');
      return current.worker;
    },
    async restartWorker() {
      await stop();
      await start();
    },
    stopWorker: stop,
    startWorker: start,
    teardown,
    [Symbol.asyncDispose]: teardown,
  };
}
