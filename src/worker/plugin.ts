/**
 * `DurableMcpPlugin`: durable-mcp in any `Worker.create` on Temporal's plugin hooks; what it adds to a worker is listed in
 * docs/workflows.md ("Your own worker"). `configureWorker` prepares asynchronously (a connection from envconfig when none
 * is given, the namespace's search attributes, OpenTelemetry only when tracing is on), which SimplePlugin's cannot, then
 * an inner `SimplePlugin` merges activities, data converter, interceptors and workflow code into the worker's options.
 * One plugin for one worker: it holds that worker's MCP sessions.
 */
import type { ClientOptions, ClientPlugin } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { SimplePlugin, type SimplePluginOptions } from '@temporalio/plugin';
import type { BundleOptions, BundlerPlugin, NativeConnection, ReplayWorkerOptions, Worker, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { createActivities, type LoginDeps } from '../activities/index.js';
import { dataConverterOf, DurableMcpClientPlugin, encodedFailureConverterPath, type EncryptionCodec } from '../codec/index.js';
import type { McpConfig, SessionPool } from '../mcp/index.js';
import { startMetricsAtZero, watchSessions } from '../telemetry/metrics.js';
import type { TracingSetup } from '../telemetry/tracing.js';
import { maxCachedWorkflowsFromEnv, zeroCacheWarning } from './cache.js';
import { connectFromEnv } from './connection.js';
import { tracingOptions, workerInterceptors, workerSinks } from './interceptors.js';
import { resolvePluginOptions, type DurableMcpPluginOptions } from './options.js';
import { registeredAttributes } from './search-attributes.js';
import { workflowCode, type WorkflowCode } from './workflow-code.js';

export type { DurableMcpPluginOptions } from './options.js';

/** durable-mcp in any Temporal worker: its activities, workflows, session pool and codec, on Temporal's plugin hooks (docs/workflows.md). */
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
  private readonly nexus: boolean;
  private readonly shutdownNotice = new AbortController();
  private readonly clientPlugin: DurableMcpClientPlugin;
  private ownConnection?: NativeConnection;
  private stopWatchingSessions = () => {};
  private configured = false;

  /** Bad config, bad key material, no key where encryption is required and servers behind OAuth without a key throw here, before anything connects. */
  constructor(options: DurableMcpPluginOptions) {
    const { config, encryption, logins, pool, warnings } = resolvePluginOptions(options);
    this.config = config;
    this.pool = pool;
    this.warnings = warnings;
    this.encryption = encryption;
    this.logins = logins;
    this.tracing = options.tracing;
    this.nexus = options.nexus === true;
    this.clientPlugin = new DurableMcpClientPlugin({ encryption: encryption ?? false });
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
    // If it fails, nothing runs: close what this plugin opened (its own connection), or the process is held open.
    return this.workerOptionsFor(options).catch(async (err: unknown) => {
      await this.close();
      throw err;
    });
  }

  private async workerOptionsFor(options: WorkerOptions): Promise<WorkerOptions> {
    let { connection, namespace } = options;
    if (!connection) {
      const fromEnv = await connectFromEnv();
      connection = this.ownConnection = fromEnv.connection;
      namespace ??= fromEnv.namespace;
    }
    const ns = namespace ?? 'default';
    const searchAttributes = await registeredAttributes(connection, ns);
    const traced = await tracingOptions(this.tracing);
    const maxCachedWorkflows = options.maxCachedWorkflows ?? maxCachedWorkflowsFromEnv();
    const cacheWarning = zeroCacheWarning(maxCachedWorkflows);
    if (cacheWarning) this.warnings.push(cacheWarning);
    const servers = Object.keys(this.config.servers).filter((name) => this.config.servers[name]!.enabled);
    startMetricsAtZero(servers, ns, options.taskQueue);
    this.stopWatchingSessions = watchSessions(this.pool, options.taskQueue, 1000, servers);
    const { pool, logins, shutdownNotice } = this;
    // The Nexus service (docs/nexus.md) is loaded only when asked for: @temporalio/nexus is needed then only. Appended to the worker's own.
    const nexusServices = this.nexus ? [(await import('./nexus.js')).durableMcpServiceHandler({ searchAttributes })] : undefined;
    const merge = this.merger(options, !!traced, (code) => ({
      activities: createActivities({ pool, shutdown: shutdownNotice.signal, searchAttributes, notify: this.config.notify, logins }),
      workerInterceptors: (user) => workerInterceptors(user, traced, code.workflowsPath !== undefined),
      ...(nexusServices ? { nexusServices } : {}),
    }));
    // Defaults for workflows that wait for people. A dead worker's sticky tasks move to the shared queue after 3 s (Temporal's
    // default 10 s): recovery after a crash is then bounded by the heartbeat timeout, not by stickiness.
    const defaults = { shutdownGraceTime: '10s', stickyQueueScheduleToStartTimeout: '3s' } as const;
    return merge.configureWorker({ ...defaults, ...options, maxCachedWorkflows, connection, namespace: ns, sinks: workerSinks(options.sinks, traced) });
  }

  /** The inner SimplePlugin that sets a worker's (or a replay worker's) data converter and workflow code (./workflow-code.ts), with `more`. */
  private merger(options: WorkflowCode & { dataConverter?: DataConverter }, traced: boolean, more?: (code: WorkflowCode) => Partial<SimplePluginOptions>) {
    const dataConverter = dataConverterOf(this.encryption, options.dataConverter);
    const code = workflowCode({ workflowsPath: options.workflowsPath, workflowBundle: options.workflowBundle }, dataConverter, traced);
    // Exactly one of workflowsPath and workflowBundle is set: a function's result replaces the worker's own.
    const parts = { workflowsPath: () => code.workflowsPath!, workflowBundle: () => code.workflowBundle!, ...more?.(code) };
    return new SimplePlugin({ name: this.name, ...(dataConverter ? { dataConverter: () => dataConverter } : {}), ...parts });
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.merger(options, false).configureReplayWorker(options);
  }

  /** `bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`: with a codec, the bundle encodes failures as the worker does. */
  configureBundler(options: BundleOptions): BundleOptions {
    return !this.encryption || options.failureConverterPath ? options : { ...options, failureConverterPath: encodedFailureConverterPath };
  }

  /**
   * Runs the worker, then closes what the plugin opened. Its shutdown (`worker.shutdown()`, a signal, the end of `runUntil`,
   * a fatal error) releases the calls that only wait for a human first. No hook tells a plugin when a worker starts to stop
   * (activities hear of it only at the end of the grace time), so its public state is read every 100 ms.
   */
  async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    const watch = setInterval(() => {
      if (worker.getState() !== 'INITIALIZED' && worker.getState() !== 'RUNNING') this.releaseWaitingCalls();
    }, 100).unref();
    try {
      await next(worker);
    } finally {
      clearInterval(watch);
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
