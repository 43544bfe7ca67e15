/**
 * `createWorker(options)`: a Temporal worker that runs MCP tool calls as activities, with durable
 * elicitation. Run as a process (`node dist/src/worker.js` or `durable-mcp worker`), it reads the
 * Temporal connection from @temporalio/envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key)
 * and the MCP config from `--mcp-config`, `MCP_CONFIG` or `mcp.json`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { prebuiltBundle, workflowsPath } from './bundle.js';
import { envReferenceProblems, loadMcpConfigFile, parseMcpConfig, SessionPool, type McpConfig, type PoolOptions } from './mcp/index.js';
import { DEFAULT_TASK_QUEUE } from './contract/protocol.js';
import { durableMcpSinks, runtimeOptionsFromEnv, TelemetryConfigError, tracesRequested, watchSessions } from './telemetry.js';
import type { TracingSetup } from './tracing.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE } from './workflows/messages.js';

export { DEFAULT_TASK_QUEUE };


/**
 * Workflows kept in the worker's cache. Most durable-mcp workflows sit waiting for a human, and each cached
 * one costs a few hundred KB (about 300 KB for a tool call that waits), so the cache is small: an evicted
 * workflow replays its (short) history on its next task. Raise it (`workerOptions.maxCachedWorkflows` or DURABLE_MCP_MAX_CACHED_WORKFLOWS) for many busy workflows.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 50;

export interface CreateWorkerOptions {
  /** A connection to Temporal; default: from envconfig (TEMPORAL_ADDRESS etc., else localhost:7233). */
  connection?: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** The MCP config: a parsed config, a raw config object, or a path to a JSON file. */
  mcpConfig: McpConfig | Record<string, unknown> | string;
  pool?: PoolOptions;
  /**
   * Your own workflows module, which must also export this package's workflows
   * (`export * from 'durable-mcp/workflows'`). Default: the prebuilt bundle of durable-mcp's workflows.
   */
  workflowsPath?: string;
  /**
   * OpenTelemetry tracing: default from the OTLP environment variables (off when none is set); `false` turns
   * it off, a setup (span processor and resource) turns it on with that processor.
   */
  tracing?: TracingSetup | false;
  /** Your workflows, bundled already (`bundleWorkflowCode`): a worker started again reuses it instead of bundling again. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra worker options (e.g. maxCachedWorkflows: 0 to replay on every task, shutdownGraceTime). */
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'>>;
}

export interface DurableMcpWorker {
  readonly worker: Worker;
  readonly pool: SessionPool;
  readonly taskQueue: string;
  /** Problems found at start that leave one server failing (e.g. an unset `${VAR}`); the worker says them. */
  readonly warnings: string[];
  /** Run until shutdown; closes every MCP session afterwards. */
  run(): Promise<void>;
  /** Run until `promise` settles, then shut down; closes every MCP session afterwards. */
  runUntil<R>(promise: Promise<R> | (() => Promise<R>)): Promise<R>;
  shutdown(): void;
}

function resolveMcpConfig(config: CreateWorkerOptions['mcpConfig']): McpConfig {
  if (typeof config === 'string') return loadMcpConfigFile(config);
  const maybeParsed = config as McpConfig;
  if (maybeParsed.servers && Object.values(maybeParsed.servers).every((s: any) => s && 'transport' in s && 'timeoutMs' in s)) return maybeParsed;
  return parseMcpConfig(config);
}

/** Connect using @temporalio/envconfig (env vars and the Temporal config file). */
export async function connectFromEnv(): Promise<{ connection: NativeConnection; namespace: string; address: string }> {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  const address = connectionOptions.address ?? 'localhost:7233';
  try {
    const connection = await NativeConnection.connect({ ...connectionOptions, address });
    return { connection, namespace: namespace ?? 'default', address };
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${address}: ${(err as Error).message}. Set TEMPORAL_ADDRESS, or run \`durable-mcp dev\` for a local server.`);
  }
}

export async function createWorker(options: CreateWorkerOptions): Promise<DurableMcpWorker> {
  // Bad config fails here, before anything starts.
  const config = resolveMcpConfig(options.mcpConfig);
  const warnings = envReferenceProblems(config);
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  let connection = options.connection;
  let namespace = options.namespace;
  let ownConnection = false;
  if (!connection) {
    const c = await connectFromEnv();
    connection = c.connection;
    namespace ??= c.namespace;
    ownConnection = true;
  }
  const ns = namespace ?? 'default';
  // The worker keeps the DurableMcpAwaitingInput search attribute current only where it is registered:
  // upserting an unregistered attribute would fail workflow tasks.
  let searchAttribute = false;
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace: ns });
    searchAttribute = Object.prototype.hasOwnProperty.call(res.customAttributes ?? {}, AWAITING_INPUT_SEARCH_ATTRIBUTE);
  } catch {
    searchAttribute = false;
  }
  const pool = new SessionPool(config, options.pool);
  const shutdownNotice = new AbortController();
  // The OpenTelemetry SDK is loaded only when tracing is on.
  const tracingModule = options.tracing || (options.tracing === undefined && tracesRequested()) ? await import('./tracing.js') : undefined;
  const tracing = options.tracing === false ? undefined : (options.tracing ?? tracingModule?.tracingFromEnv());
  const traced = tracing ? tracingModule!.tracingWorkerOptions(tracing) : undefined;
  // A custom workflows module is bundled at start, with the tracing workflow interceptors when tracing is on.
  const bundle = prebuiltBundle({ traced: !!tracing });
  const envCache = Number(process.env.DURABLE_MCP_MAX_CACHED_WORKFLOWS);
  const maxCachedWorkflows = Number.isInteger(envCache) && envCache >= 0 && process.env.DURABLE_MCP_MAX_CACHED_WORKFLOWS ? envCache : DEFAULT_MAX_CACHED_WORKFLOWS;
  const cacheWarning = zeroCacheWarning(options.workerOptions?.maxCachedWorkflows ?? maxCachedWorkflows);
  if (cacheWarning) warnings.push(cacheWarning);
  const worker = await Worker.create({
    shutdownGraceTime: '10s',
    // A dead worker's sticky tasks move to the shared queue after this (default 10 s): recovery after a
    // crash is then bounded by the heartbeat timeout, not by stickiness.
    stickyQueueScheduleToStartTimeout: '3s',
    maxCachedWorkflows,
    ...options.workerOptions,
    sinks: { ...durableMcpSinks(), ...traced?.sinks, ...options.workerOptions?.sinks },
    interceptors: {
      ...options.workerOptions?.interceptors,
      client: { ...options.workerOptions?.interceptors?.client, workflow: [...((traced?.interceptors?.client?.workflow as WorkflowClientInterceptor[] | undefined) ?? []), ...((options.workerOptions?.interceptors?.client?.workflow as WorkflowClientInterceptor[] | undefined) ?? [])] },
      activity: [...(traced?.interceptors?.activity ?? []), ...(options.workerOptions?.interceptors?.activity ?? [])],
      // A prebuilt bundle has its workflow interceptors built in (the traced one when tracing is on).
      ...(!options.workflowBundle && (options.workflowsPath || !bundle) ? { workflowModules: [...(traced?.interceptors?.workflowModules ?? []), ...(options.workerOptions?.interceptors?.workflowModules ?? [])] } : {}),
    },
    connection,
    namespace: ns,
    taskQueue,
    activities: createActivities({ pool, shutdown: shutdownNotice.signal, searchAttribute, ...(config.notify ? { notify: config.notify } : {}) }),
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : options.workflowsPath ? { workflowsPath: options.workflowsPath } : bundle ? { workflowBundle: bundle } : { workflowsPath }),
  });
  const stopWatchingSessions = watchSessions(pool, taskQueue);
  const cleanup = async () => {
    await pool.close();
    stopWatchingSessions();
    if (ownConnection) await connection!.close().catch(() => undefined);
  };
  return {
    worker,
    pool,
    taskQueue,
    warnings,
    async run() {
      try {
        await worker.run();
      } finally {
        await cleanup();
      }
    },
    async runUntil<R>(promise: Promise<R> | (() => Promise<R>)) {
      const p = typeof promise === 'function' ? promise() : promise;
      // Release waiting calls as soon as the awaited work settles, then let the SDK drain and stop.
      p.then(
        () => shutdownNotice.abort(),
        () => shutdownNotice.abort(),
      );
      try {
        return await worker.runUntil(p);
      } finally {
        await cleanup();
      }
    },
    shutdown() {
      // Release the calls that only wait for a human first, then drain the rest.
      shutdownNotice.abort();
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}

/**
 * A warning when the workflow cache is off (`maxCachedWorkflows` 0): Temporal Core (TypeScript SDK 1.24) then
 * drops query tasks that arrive together for one workflow, so `pending` and the inbox can time out
 * (scripts/upstream/UPSTREAM.md).
 */
export function zeroCacheWarning(maxCachedWorkflows: number | undefined): string | undefined {
  if (maxCachedWorkflows !== 0) return undefined;
  return 'maxCachedWorkflows is 0 (the workflow cache is off): Temporal Core then drops queries sent to one workflow at the same time, so `pending` and the inbox can time out. Use it for replay testing only; the default is ' + DEFAULT_MAX_CACHED_WORKFLOWS;
}

/** Advice when glibc's malloc arenas are not capped (they let a worker's RSS grow with every tool call). */
export function mallocArenaHint(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux' || env.MALLOC_ARENA_MAX) return undefined;
  return 'MALLOC_ARENA_MAX is not set; without it glibc lets RSS grow with every tool call. Run with MALLOC_ARENA_MAX=2 (the Docker image and npm start do).';
}

let runtimeInstalled = false;
/** This process handles SIGINT/SIGTERM itself, so that waiting calls are released before the SDK drains. */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    // Telemetry from the environment: DURABLE_MCP_METRICS_BIND (Prometheus), see src/telemetry.ts.
    Runtime.install(runtimeOptionsFromEnv({ shutdownSignals: [] }));
  } catch (err) {
    // A runtime was installed already (e.g. by the embedding application): its telemetry applies.
    if (err instanceof TelemetryConfigError) throw err;
  }
}

/** The MCP config path: `--mcp-config PATH`, else MCP_CONFIG, else `mcp.json`. */
export function mcpConfigPathFrom(argv: string[], env: NodeJS.ProcessEnv = process.env): string {
  const i = argv.indexOf('--mcp-config');
  if (i >= 0 && argv[i + 1]) return resolve(argv[i + 1]);
  const eq = argv.find((a) => a.startsWith('--mcp-config='));
  if (eq) return resolve(eq.slice('--mcp-config='.length));
  return resolve(env.MCP_CONFIG ?? 'mcp.json');
}

/** What the worker process reports (`durable-mcp worker --json` prints each as one JSON line). */
export type WorkerProcessEvent =
  | { event: 'warning'; message: string }
  | { event: 'note'; message: string }
  | { event: 'ready'; temporal: { address: string; namespace: string }; taskQueue: string; mcpServers: string[]; mcpConfig: string }
  | { event: 'stopping'; signal: string }
  | { event: 'stopped' };

function workerEventText(e: WorkerProcessEvent): string {
  switch (e.event) {
    case 'warning':
      return `durable-mcp worker: warning: ${e.message}`;
    case 'note':
      return `durable-mcp worker: ${e.message}`;
    case 'ready':
      return `durable-mcp worker: Temporal ${e.temporal.address} namespace ${e.temporal.namespace}, task queue ${e.taskQueue}, MCP servers ${e.mcpServers.join(', ') || '(none)'}`;
    case 'stopping':
      return `durable-mcp worker: ${e.signal}, shutting down (waiting calls are released)`;
    case 'stopped':
      return 'durable-mcp worker: stopped';
  }
}

/**
 * The worker process: SIGINT and SIGTERM shut it down gracefully (in-flight calls released, every MCP
 * server process closed). Temporal's runtime installs the signal handlers. What it reports goes to `event`
 * (default: a line of text each, to `log`, stderr by default).
 */
export async function runWorkerProcess(options: { mcpConfigPath: string; taskQueue?: string; log?: (line: string) => void; event?: (e: WorkerProcessEvent) => void }): Promise<void> {
  const log = options.log ?? ((line: string) => console.error(line));
  const report = options.event ?? ((e: WorkerProcessEvent) => log(workerEventText(e)));
  installRuntime();
  const config = loadMcpConfigFile(options.mcpConfigPath);
  const { connection, namespace, address } = await connectFromEnv();
  const w = await createWorker({ connection, namespace, taskQueue: options.taskQueue ?? process.env.DURABLE_MCP_TASK_QUEUE, mcpConfig: config });
  const onSignal = (signal: NodeJS.Signals) => {
    report({ event: 'stopping', signal });
    w.shutdown();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const hint = mallocArenaHint();
  if (hint) report({ event: 'note', message: hint });
  for (const warning of w.warnings) report({ event: 'warning', message: warning });
  if (!Object.values(config.servers).some((srv) => srv.enabled)) report({ event: 'warning', message: `${options.mcpConfigPath} has no enabled MCP server: every tool call will fail with UnknownServer` });
  report({ event: 'ready', temporal: { address, namespace }, taskQueue: w.taskQueue, mcpServers: Object.keys(config.servers), mcpConfig: options.mcpConfigPath });
  try {
    await w.run();
  } finally {
    await connection.close().catch(() => undefined);
  }
  report({ event: 'stopped' });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runWorkerProcess({ mcpConfigPath: mcpConfigPathFrom(process.argv.slice(2)) }).catch((err) => {
    console.error(`durable-mcp worker: ${(err as Error).message}`);
    process.exit(1);
  });
}
