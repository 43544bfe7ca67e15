/**
 * `durable-mcp worker` and the worker's process entry (`node dist/src/cli/worker-command.js`): reads the Temporal
 * connection from @temporalio/envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key) and the MCP config from
 * `--mcp-config`, `MCP_CONFIG` or `mcp.json`, and runs `createWorker` (src/worker.ts) until SIGINT/SIGTERM.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Runtime } from '@temporalio/worker';
import { resolveEncryption } from '../codec/index.js';
import { loadMcpConfigFile } from '../mcp/index.js';
import { NEXUS_SERVICE } from '../contract/nexus.js';
import { runtimeOptionsFromEnv, TelemetryConfigError } from '../telemetry/metrics.js';
import { WorkerLogger } from '../telemetry/worker-log.js';
import { connectFromEnv, createWorker } from '../worker.js';
import { modelProviderFromEnv } from '../worker/model-provider.js';

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
    // Telemetry from the environment: DURABLE_MCP_METRICS_BIND (Prometheus), see src/telemetry/metrics.ts.
    // The log: a caller's mistake on one line (src/telemetry/worker-log.ts).
    Runtime.install(runtimeOptionsFromEnv({ shutdownSignals: [], logger: new WorkerLogger() }));
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
  | {
      event: 'ready';
      temporal: { address: string; namespace: string };
      taskQueue: string;
      mcpServers: string[];
      mcpConfig: string;
      /** The id of the key that encrypts payloads (null: payloads in plaintext). */
      encryptionKeyId: string | null;
      /** With --agent: the agents' model (a label, never a key); null: agents off. */
      model: string | null;
      /** `--nexus`: the Nexus service the worker offers on its task queue (docs/nexus.md). */
      nexusService?: string;
    }
  | { event: 'stopping'; signal: string }
  | { event: 'stopped' };

function workerEventText(e: WorkerProcessEvent): string {
  switch (e.event) {
    case 'warning':
      return `durable-mcp worker: warning: ${e.message}`;
    case 'note':
      return `durable-mcp worker: ${e.message}`;
    case 'ready':
      return (
        `durable-mcp worker: Temporal ${e.temporal.address} namespace ${e.temporal.namespace}` +
        `, task queue ${e.taskQueue}, MCP servers ${e.mcpServers.join(', ') || '(none)'}` +
        (e.encryptionKeyId ? `, payloads encrypted (key "${e.encryptionKeyId}")` : '') +
        (e.model ? `, agents (mcpAgent) with model: ${e.model}` : '') +
        (e.nexusService ? `, Nexus service ${e.nexusService}` : '')
      );
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
export async function runWorkerProcess(options: {
  mcpConfigPath: string;
  taskQueue?: string;
  /** Run agents too (`--agent`): mcpAgent with the model provider of the environment. */
  agent?: boolean;
  /** Offer the Nexus service `durable-mcp` on the task queue (docs/nexus.md). */
  nexus?: boolean;
  log?: (line: string) => void;
  event?: (e: WorkerProcessEvent) => void;
}): Promise<void> {
  const log = options.log ?? ((line: string) => console.error(line));
  const report = options.event ?? ((e: WorkerProcessEvent) => log(workerEventText(e)));
  installRuntime();
  const config = loadMcpConfigFile(options.mcpConfigPath);
  // Bad key material (DURABLE_MCP_ENCRYPTION_KEYS), or no key where encryption is required, stops the worker here, before it connects.
  const encryption = resolveEncryption(undefined, process.env, {
    who: 'the worker',
    ...(config.requireEncryption ? { requiredBy: `"requireEncryption" in ${options.mcpConfigPath}` } : {}),
  });
  // A bad model setting stops the worker here, naming the variable, before it connects.
  const model = options.agent ? await modelProviderFromEnv(process.env) : undefined;
  const { connection, namespace, address } = await connectFromEnv();
  const w = await createWorker({
    connection,
    namespace,
    taskQueue: options.taskQueue ?? process.env.DURABLE_MCP_TASK_QUEUE,
    mcpConfig: config,
    encryption: encryption ?? false,
    ...(model ? { agent: { modelProvider: model.provider } } : {}),
    ...(options.nexus ? { nexus: true } : {}),
  });
  const onSignal = (signal: NodeJS.Signals) => {
    report({ event: 'stopping', signal });
    w.shutdown();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const hint = mallocArenaHint();
  if (hint) report({ event: 'note', message: hint });
  for (const warning of w.warnings) report({ event: 'warning', message: warning });
  if (!Object.values(config.servers).some((srv) => srv.enabled))
    report({ event: 'warning', message: `${options.mcpConfigPath} has no enabled MCP server: every tool call will fail with UnknownServer` });
  report({
    event: 'ready',
    temporal: { address, namespace },
    taskQueue: w.taskQueue,
    mcpServers: Object.keys(config.servers),
    mcpConfig: options.mcpConfigPath,
    encryptionKeyId: w.encryption?.keyId ?? null,
    model: model?.choice.label ?? null,
    ...(options.nexus ? { nexusService: NEXUS_SERVICE } : {}),
  });
  try {
    await w.run();
  } finally {
    await connection.close().catch(() => undefined);
  }
  report({ event: 'stopped' });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runWorkerProcess({ mcpConfigPath: mcpConfigPathFrom(process.argv.slice(2)), nexus: process.argv.includes('--nexus') }).catch((err) => {
    console.error(`durable-mcp worker: ${(err as Error).message}`);
    process.exit(1);
  });
}
