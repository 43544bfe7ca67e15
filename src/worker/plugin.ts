/**
 * `DurableMcpPlugin`: durable-mcp in any Temporal worker (`Worker.create({ plugins: [new DurableMcpPlugin(...)] })`), on
 * Temporal's plugin system like `@temporalio/ai-sdk`'s AiSdkPlugin. Its client side is a `SimplePlugin` of
 * `@temporalio/plugin` (DurableMcpClientPlugin); its worker side implements `WorkerPlugin` itself, because it connects,
 * asks the namespace for its search attributes and loads OpenTelemetry only when tracing is on, all asynchronous, which
 * `WorkerPlugin.configureWorker` allows and SimplePlugin's does not. It adds to the worker:
 * - the activities (`createActivities`: the tool call, its elicitation, progress, notifications, OAuth) and their pool
 *   of MCP sessions, closed when the worker stops;
 * - the workflows: with no `workflowsPath` or `workflowBundle` of your own, durable-mcp's (the prebuilt bundle that
 *   fits, ./workflow-code.ts); a workflows module of yours must also export durable-mcp's (`export * from
 *   'durable-mcp/workflows'`: Temporal bundles one module per worker, so yours is that module);
 * - the payload codec and its data converter (encoded failures), also for clients given the plugin (a client plugin);
 * - OpenTelemetry's interceptors when tracing is on, durable-mcp's metrics sinks;
 * - the search-attribute checks (which of durable-mcp's attributes the namespace has: ./search-attributes.ts);
 * - defaults for a worker whose workflows wait for people (a small workflow cache, a short sticky timeout, a grace
 *   time), which options of yours override; and on shutdown it releases the calls that only wait for a human first.
 * Without a connection in the worker's options it connects from @temporalio/envconfig (TEMPORAL_ADDRESS, …) and closes
 * that connection when the worker stops. One plugin for one worker: it holds that worker's MCP sessions.
 */
import type { ClientOptions, ClientPlugin } from '@temporalio/client';
import type { BundleOptions, BundlerPlugin, NativeConnection, ReplayWorkerOptions, Worker, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { createActivities, type LoginDeps } from '../activities/index.js';
import { dataConverterOf, DurableMcpClientPlugin, encodedFailureConverterPath, resolveEncryption, type EncryptionCodec } from '../codec/index.js';
import { envReferenceProblems, loadMcpConfigFile, parseMcpConfig, TokenCache, type McpConfig, type PoolOptions, type SessionPool } from '../mcp/index.js';
import { startMetricsAtZero, tracesRequested, watchSessions } from '../telemetry/metrics.js';
import type { TracingSetup } from '../telemetry/tracing.js';
import { maxCachedWorkflowsFromEnv, zeroCacheWarning } from './cache.js';
import { connectFromEnv } from './connection.js';
import { workerInterceptors, workerSinks } from './interceptors.js';
import { loginDeps, loginPool, type OAuthWorkerOptions } from './oauth.js';
import { registeredAttributes } from './search-attributes.js';
import { workflowCode } from './workflow-code.js';

export interface DurableMcpPluginOptions {
  /** The MCP config: a parsed config, a raw config object, or a path to a JSON file. */
  mcpConfig: McpConfig | Record<string, unknown> | string;
  pool?: PoolOptions;
  /**
   * OpenTelemetry tracing: default from the OTLP environment variables (off when none is set); `false` turns
   * it off, a setup (span processor and resource) turns it on with that processor.
   */
  tracing?: TracingSetup | false;
  /**
   * The payload codec of workflow and activity inputs and results, signals, updates, queries and memo (the activities'
   * own client too): default the keys of DURABLE_MCP_ENCRYPTION_KEYS / DURABLE_MCP_ENCRYPTION_KEYS_FILE (none when unset,
   * bad material throws a CodecError (EncryptionConfig) before anything connects); `false` for none. Appended to the worker's
   * `dataConverter`'s codecs, if any.
   */
  encryption?: EncryptionCodec | false;
  /**
   * Refuse to run without a payload codec (a CodecError, EncryptionRequired, before anything connects), as
   * DURABLE_MCP_REQUIRE_ENCRYPTION=1 or the config's `"requireEncryption": true` do.
   */
  requireEncryption?: boolean;
  /** Servers behind OAuth (`"auth"` in their config; docs/oauth.md). */
  oauth?: OAuthWorkerOptions;
}

function resolveMcpConfig(config: DurableMcpPluginOptions['mcpConfig']): McpConfig {
  if (typeof config === 'string') return loadMcpConfigFile(config);
  const maybeParsed = config as McpConfig;
  if (maybeParsed.servers && Object.values(maybeParsed.servers).every((s: any) => s && 'transport' in s && 'timeoutMs' in s)) return maybeParsed;
  return parseMcpConfig(config);
}

/** OpenTelemetry's interceptors and sinks, or undefined when tracing is off. The OpenTelemetry SDK is loaded only when it is on. */
async function tracingOptions(setting: TracingSetup | false | undefined): Promise<Pick<WorkerOptions, 'interceptors' | 'sinks'> | undefined> {
  if (setting === false || (setting === undefined && !tracesRequested())) return undefined;
  const tracing = await import('../telemetry/tracing.js');
  const setup = setting ?? tracing.tracingFromEnv();
  return setup ? tracing.tracingWorkerOptions(setup) : undefined;
}

export class DurableMcpPlugin implements WorkerPlugin, ClientPlugin, BundlerPlugin {
  readonly name = 'durable-mcp';
  readonly config: McpConfig;
  /** The worker's MCP sessions (closed when the worker stops). */
  readonly pool: SessionPool;
  /** The payload codec the worker encrypts with (undefined: payloads in plaintext). */
  readonly encryption?: EncryptionCodec;
  /** Problems found at start that leave one server failing (e.g. an unset `${VAR}`), and advice; say them. */
  readonly warnings: string[];
  private readonly logins?: LoginDeps;
  private readonly tracing: TracingSetup | false | undefined;
  private readonly shutdownNotice = new AbortController();
  private readonly clientPlugin: DurableMcpClientPlugin;
  private ownConnection?: NativeConnection;
  private stopWatchingSessions = () => {};
  private configured = false;

  /** Bad config, bad key material, no key where encryption is required and servers behind OAuth without a key throw here, before anything connects. */
  constructor(options: DurableMcpPluginOptions) {
    const config = resolveMcpConfig(options.mcpConfig);
    const requiredBy = options.requireEncryption
      ? 'the requireEncryption option'
      : config.requireEncryption
        ? '"requireEncryption" in the MCP config'
        : undefined;
    const encryption = resolveEncryption(options.encryption, process.env, { who: 'the worker', ...(requiredBy ? { requiredBy } : {}) });
    this.clientPlugin = new DurableMcpClientPlugin({ encryption: encryption ?? false });
    this.config = config;
    if (encryption) this.encryption = encryption;
    this.tracing = options.tracing;
    this.warnings = envReferenceProblems(config);
    const tokens = new TokenCache();
    const logins = loginDeps(config, options.oauth, encryption, tokens, this.warnings);
    if (logins) this.logins = logins;
    this.pool = loginPool(config, options.pool, tokens);
  }

  private get servers(): string[] {
    return Object.entries(this.config.servers)
      .filter(([, s]) => s.enabled)
      .map(([name]) => name);
  }

  /** A client given this plugin (or a connection's clients) reads and writes the payloads as the worker does. */
  configureClient(options: Omit<ClientOptions, 'plugins'>): Omit<ClientOptions, 'plugins'> {
    return this.clientPlugin.configureClient(options);
  }

  async configureWorker(options: WorkerOptions): Promise<WorkerOptions> {
    if (this.configured) {
      throw new Error(
        'this DurableMcpPlugin has configured a worker already: one plugin serves one worker (it holds its MCP sessions); ' +
          'give it to Worker.create or to its NativeConnection, not both, and a new one to each worker',
      );
    }
    this.configured = true;
    try {
      return await this.workerOptionsFor(options);
    } catch (err) {
      // Nothing runs: close what this plugin opened (its own connection), or the process is held open.
      await this.close();
      throw err;
    }
  }

  private async workerOptionsFor(options: WorkerOptions): Promise<WorkerOptions> {
    const { workflowsPath, workflowBundle, ...rest } = options;
    let { connection, namespace } = options;
    if (!connection) {
      const fromEnv = await connectFromEnv();
      connection = this.ownConnection = fromEnv.connection;
      namespace ??= fromEnv.namespace;
    }
    const ns = namespace ?? 'default';
    const searchAttributes = await registeredAttributes(connection, ns);
    const traced = await tracingOptions(this.tracing);
    const dataConverter = dataConverterOf(this.encryption, options.dataConverter);
    const code = workflowCode({ workflowsPath, workflowBundle }, dataConverter, !!traced);
    const maxCachedWorkflows = options.maxCachedWorkflows ?? maxCachedWorkflowsFromEnv();
    const cacheWarning = zeroCacheWarning(maxCachedWorkflows);
    if (cacheWarning) this.warnings.push(cacheWarning);
    startMetricsAtZero(this.servers, ns, options.taskQueue);
    this.stopWatchingSessions = watchSessions(this.pool, options.taskQueue, 1000, this.servers);
    const activities = createActivities({
      pool: this.pool,
      shutdown: this.shutdownNotice.signal,
      searchAttributes,
      ...(this.config.notify ? { notify: this.config.notify } : {}),
      ...(this.logins ? { logins: this.logins } : {}),
    });
    return {
      shutdownGraceTime: '10s',
      // A dead worker's sticky tasks move to the shared queue after this (default 10 s): recovery after a
      // crash is then bounded by the heartbeat timeout, not by stickiness.
      stickyQueueScheduleToStartTimeout: '3s',
      ...rest,
      maxCachedWorkflows,
      connection,
      namespace: ns,
      ...(dataConverter ? { dataConverter } : {}),
      ...code,
      activities: { ...options.activities, ...activities },
      sinks: workerSinks(options.sinks, traced),
      interceptors: workerInterceptors(options.interceptors, traced, code.workflowsPath !== undefined),
    };
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const { workflowsPath, workflowBundle, ...rest } = options;
    const dataConverter = dataConverterOf(this.encryption, options.dataConverter);
    return { ...rest, ...(dataConverter ? { dataConverter } : {}), ...workflowCode({ workflowsPath, workflowBundle }, dataConverter, false) };
  }

  /** `bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`: with a codec, the bundle encodes failures as the worker does. */
  configureBundler(options: BundleOptions): BundleOptions {
    if (!this.encryption || options.failureConverterPath) return options;
    return { ...options, failureConverterPath: encodedFailureConverterPath };
  }

  async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    // Shutdown (a call, a signal, the end of runUntil) releases the calls that only wait for a human first, then drains the rest.
    const shutdown = worker.shutdown.bind(worker);
    worker.shutdown = () => {
      this.releaseWaitingCalls();
      shutdown();
    };
    try {
      await next(worker);
    } finally {
      await this.close();
    }
  }

  /**
   * Close what the plugin opened: the MCP sessions, the session gauge, and the connection it made itself (none given).
   * A worker's run does it when it ends; call it yourself when `Worker.create` failed after this plugin configured the
   * worker (the worker never runs). Idempotent.
   */
  async close(): Promise<void> {
    await this.pool.close();
    this.stopWatchingSessions();
    const own = this.ownConnection;
    this.ownConnection = undefined;
    if (own) await own.close().catch(() => undefined);
  }

  /** Release the tool calls that only wait for a human (their workflows run them again once answered). */
  releaseWaitingCalls(): void {
    this.shutdownNotice.abort();
  }
}
