/**
 * `durable-mcp dev`: an embedded Temporal dev server (Temporal CLI, SQLite file under a data folder),
 * the worker, and a demo MCP server that elicits. With TEMPORAL_ADDRESS set, it uses that server instead.
 * With a key (DURABLE_MCP_ENCRYPTION_KEYS) it also starts the codec server on loopback and points the dev server's
 * Temporal UI at it (`--ui-codec-endpoint`), so the UI shows decoded payloads.
 * The worker runs agents too (`mcpAgent`, with the model provider of the environment: ../worker/model-provider.ts);
 * the MCP config is read as ./dev-config.ts says.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { ProviderV4 } from '@ai-sdk/provider';
import { NEXUS_SERVICE } from '../contract/nexus.js';
import { ENCRYPTION_KEYS_ENV, resolveEncryption, type EncryptionCodec } from '../codec/index.js';
import { startCodecServer, type CodecServerHandle } from '../codec/server.js';
import type { McpConfig } from '../mcp/index.js';
import { createWorker, type CreateWorkerOptions, type DurableMcpWorker } from '../worker.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../mcp/index.js';
import { modelProviderFromEnv } from '../worker/model-provider.js';
import { devUiOrigins, uiOriginsFrom } from './codec-command.js';
import { loadDevMcpConfig, mcpConfigLines, tryItLines, type DevMcpConfig } from './dev-config.js';
import { startDevInbox } from './dev-inbox.js';
import { connectExternalTemporal, isRunning, startDevTemporal, stopDevServer } from './dev-temporal.js';
import { installRuntime, mallocArenaHint } from './worker-command.js';

export { demoMcpConfig, demoServerPath } from './dev-config.js';
/**
 * How a person runs the CLI in the commands `dev` prints: `npx durable-mcp` runs this package's bin wherever it is
 * installed (a clone after `npm start`, or a project that depends on it), with nothing on PATH and no global install.
 */
export const CLI = 'npx durable-mcp';

export interface DevOptions {
  dataDir: string;
  mcpConfigPath?: string;
  port: number;
  uiPort: number;
  taskQueue?: string;
  /** Port of the inbox web page (default 8787, 0 picks a free one); the inbox binds to 127.0.0.1. */
  inboxPort?: number;
  /** Port of the codec server, started when a key is set (default 8081, 0 picks a free one); it binds to 127.0.0.1. */
  codecPort?: number;
  log?: (line: string) => void;
  /** A warning (default: logged as "Warning: …"): no enabled MCP server, an unset `${VAR}`, an inbox that could not start. */
  warn?: (message: string) => void;
  /** A note (default: logged): what is being installed, that TEMPORAL_ADDRESS is used, a tuning hint. */
  note?: (message: string) => void;
  /** Aborted (e.g. on SIGINT/SIGTERM) while starting: the dev server is stopped and startDev rejects. */
  signal?: AbortSignal;
  /** Run agents (`mcpAgent`, default true): with the model provider of the environment unless one is given here. */
  agent?: boolean | { modelProvider: ProviderV4; label: string };
  /** Where the agent worker's workflow bundle is kept (default: DURABLE_MCP_CACHE_DIR, else $XDG_CACHE_HOME/durable-mcp, else ~/.cache/durable-mcp). */
  cacheDir?: string;
  /** Offer the Nexus service `durable-mcp` on the task queue (`dev --nexus`, docs/nexus.md). */
  nexus?: boolean;
}

export interface DevHandle {
  address: string;
  namespace: string;
  /** Set only when `dev` started the Temporal server (not with TEMPORAL_ADDRESS). */
  uiAddress?: string;
  /** The dev server's SQLite file (unset with TEMPORAL_ADDRESS: that server's storage is its own). */
  database?: string;
  /** Whether the Temporal server is one `dev` found through TEMPORAL_ADDRESS (true) or started (false). */
  external: boolean;
  taskQueue: string;
  /** The MCP servers of the config, enabled or not. */
  mcpServers: string[];
  /** The MCP config file read (unset: the built-in demo config). */
  mcpConfig?: string;
  /** The agents' model (a label, never a key); unset when agents are off. */
  model?: string;
  /** The inbox page's address (unset when it could not start). */
  inboxUrl?: string;
  /** The codec server's endpoint (set when a key is: the Temporal UI of `dev` decodes through it). */
  codecUrl?: string;
  /** Settles when everything has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
  /** Kill the dev server at once (SIGKILL), e.g. on a second Ctrl-C. */
  kill(): void;
}

/** A port `dev` needs is taken: nothing was started. */
export class DevPortTakenError extends Error {
  override name = 'DevPortTakenError';
  constructor(
    readonly port: number,
    readonly what: string,
    readonly flag: string,
  ) {
    super(
      `port ${port} (${what}) is already in use on 127.0.0.1, maybe by another \`durable-mcp dev\` or Temporal server. ` +
        `Nothing was started. Choose another port with ${flag} <port>, or, to use the server that listens there,` +
        ` run \`durable-mcp worker\` with TEMPORAL_ADDRESS=127.0.0.1:${port}.`,
    );
  }
}

/** Whether something listens on 127.0.0.1:port (or it cannot be bound for another reason: then it is not free either). */
export function portTaken(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.once('error', () => resolvePort(true));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolvePort(false)));
  });
}

/** Refuse before anything starts: a taken port would otherwise be another server, reported as ours. */
async function refuseTakenPorts(options: DevOptions, external: boolean, codecPort: number | undefined): Promise<void> {
  if (!external) {
    if (await portTaken(options.port)) throw new DevPortTakenError(options.port, 'Temporal gRPC', '--port');
    if (await portTaken(options.uiPort)) throw new DevPortTakenError(options.uiPort, 'Temporal UI', '--ui-port');
  }
  if (codecPort !== undefined && codecPort !== 0 && (await portTaken(codecPort))) throw new DevPortTakenError(codecPort, 'codec server', '--codec-port');
}

/** A warning when no server of dev's MCP config is enabled (the built-in demo server it added aside); the config. */
function warnNoServer({ config, path, demoAdded }: DevMcpConfig, warn: (message: string) => void): McpConfig {
  if (!Object.entries(config.servers).some(([name, srv]) => srv.enabled && !(demoAdded && name === 'demo'))) {
    const demo = demoAdded ? ' (dev added the built-in demo server: its calls work)' : '';
    warn(`the MCP config${path ? ` ${path}` : ''} has no enabled server: every tool call will fail with UnknownServer.${demo}`);
  }
  return config;
}

/** The banner's lines about the worker: its task queue and servers, the MCP config, the agents' model. */
function workerBanner(
  worker: DurableMcpWorker,
  mcp: DevMcpConfig,
  agent: { label: string } | undefined,
  log: (line: string) => void,
  note: (m: string) => void,
  nexus: boolean,
) {
  log(`Worker: task queue ${worker.taskQueue}, MCP servers: ${Object.keys(mcp.config.servers).join(', ')}`);
  for (const line of mcpConfigLines(mcp)) log(line);
  log(`Agents:              ${agent ? `the workflow mcpAgent; model: ${agent.label}` : 'off'}`);
  if (nexus) log(`Nexus service:       ${NEXUS_SERVICE} (callTool, listTools, runPipeline) on task queue ${worker.taskQueue} (docs/nexus.md)`);
  if (worker.agentBundle?.built) note(`the agent worker's workflow bundle was made once and is kept for the next start: ${worker.agentBundle.codePath}`);
}

/** The agents' model provider: given, else from the environment; undefined when agents are off or cannot load. */
async function devModel(options: DevOptions, warn: (message: string) => void): Promise<{ modelProvider: ProviderV4; label: string } | undefined> {
  if (options.agent === false) return undefined;
  if (options.agent && options.agent !== true) return options.agent;
  // Agents need @temporalio/ai-sdk and ai (optional peers of the package, installed in a clone): without them dev runs the rest.
  try {
    // One after the other: two concurrent imports of one ES module from require() and import() trip Node.
    await import('@temporalio/ai-sdk');
    await import('ai');
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    warn('agents are off: @temporalio/ai-sdk or ai is not installed (npm install @temporalio/ai-sdk ai)');
    return undefined;
  }
  // A bad setting (DURABLE_MCP_MODEL_PROVIDER, a base URL, a provider package missing) stops dev, naming it: it would fail every agent.
  const { provider, choice } = await modelProviderFromEnv(process.env);
  return { modelProvider: provider, label: choice.label };
}

/** The worker's options beyond the basics: agents (their model provider, the bundle's cache) and the Nexus service. */
function workerExtras(options: DevOptions, agent: { modelProvider: ProviderV4 } | undefined): Pick<CreateWorkerOptions, 'agent' | 'nexus'> {
  return {
    ...(agent ? { agent: { modelProvider: agent.modelProvider, ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}) } } : {}),
    ...(options.nexus ? { nexus: true } : {}),
  };
}

/** The banner's lines about encryption, and about the key dev seals OAuth tokens with when none is set. */
function encryptionBanner(
  codec: EncryptionCodec | undefined,
  oauth: { servers: string[]; sealKeyFile: string } | undefined,
  log: (line: string) => void,
  note: (m: string) => void,
): void {
  if (codec) log(`Encryption: on, payloads encrypted with key "${codec.keyId}" (${ENCRYPTION_KEYS_ENV})`);
  else note(encryptionOffNote());
  if (oauth && !codec) {
    note(
      `OAuth server${oauth.servers.length > 1 ? 's' : ''} ${oauth.servers.map((name) => `"${name}"`).join(', ')}: without ${ENCRYPTION_KEYS_ENV}, dev seals ` +
        `their tokens with a key of its own (${oauth.sealKeyFile}); a worker outside dev refuses them without a key`,
    );
  }
}

export async function startDev(options: DevOptions): Promise<DevHandle> {
  const log = options.log ?? ((line: string) => console.log(line));
  const warn = options.warn ?? ((message: string) => log(`Warning: ${message}`));
  const note = options.note ?? log;
  const external = process.env.TEMPORAL_ADDRESS;
  // Bad key material (DURABLE_MCP_ENCRYPTION_KEYS), or no key where encryption is required, stops dev here, naming the
  // variable, before anything starts.
  const codec = resolveEncryption(undefined, process.env, { who: 'dev' });
  const codecPort = options.codecPort ?? 8081;
  await refuseTakenPorts(options, !!external, codec ? codecPort : undefined);
  installRuntime();
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const mcp = loadDevMcpConfig(options.mcpConfigPath, dataDir);
  const config = warnNoServer(mcp, warn);
  const agent = await devModel(options, warn);

  // The codec server first: the dev server's UI is started pointed at its address. Loopback, no token: the UI of the
  // dev server sends none (a token-protected one for other machines is `durable-mcp codec-server`).
  let codecServer: CodecServerHandle | undefined;
  if (codec) {
    const uiOrigins = external ? uiOriginsFrom(undefined) : devUiOrigins(options.uiPort);
    codecServer = await startCodecServer({ codec, host: '127.0.0.1', port: codecPort, uiOrigins });
  }
  const closeCodec = () => codecServer?.close().catch(() => undefined);

  const temporal = external
    ? await connectExternalTemporal(external, log, note, closeCodec)
    : await startDevTemporal({
        dataDir,
        port: options.port,
        uiPort: options.uiPort,
        codecUrl: codecServer?.url,
        signal: options.signal,
        log,
        note,
        onError: closeCodec,
      });
  const { address, namespace, connection, server, uiAddress, database } = temporal;
  if (codecServer) log(`Codec server:        ${codecServer.url} (CLI: temporal workflow show --workflow-id <id> --codec-endpoint ${codecServer.url})`);

  // Servers behind OAuth: their logins' secrets are sealed with keys derived from the codec's, or, without a key, with
  // dev's own key in its data directory (so tokens are never plaintext in dev's history either).
  const oauthServers = Object.values(config.servers).filter((srv) => srv.enabled && srv.transport === 'http' && srv.auth);
  const sealKeyFile = join(dataDir, 'oauth-credentials.key');
  const seal = oauthServers.length === 0 ? undefined : codec ? new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL)) : CredentialSeal.fromKeyFile(sealKeyFile);
  const inboxPort = options.inboxPort ?? 8787;
  let worker: DurableMcpWorker;
  try {
    worker = await createWorker({
      connection,
      namespace,
      taskQueue: options.taskQueue,
      mcpConfig: config,
      encryption: codec ?? false,
      ...(seal ? { oauth: { seal, ...(inboxPort !== 0 ? { redirectUrl: `http://127.0.0.1:${inboxPort}/oauth/callback` } : {}) } } : {}),
      ...workerExtras(options, agent),
    });
  } catch (err) {
    await connection.close().catch(() => undefined);
    server?.kill('SIGTERM');
    await closeCodec();
    throw err;
  }
  const running = worker.run();
  workerBanner(worker, mcp, agent, log, note, options.nexus === true);
  encryptionBanner(codec, seal ? { servers: oauthServers.map((srv) => srv.name), sealKeyFile } : undefined, log, note);
  const inbox = await startDevInbox(address, namespace, uiAddress, codec, options, log, warn, seal);
  for (const warning of worker.warnings) warn(warning);
  const hint = mallocArenaHint();
  if (hint) {
    if (options.note) options.note(hint);
    else log(`Note: ${hint}`);
  }
  log('');
  for (const line of tryItLines(mcp, CLI, !!agent)) log(line);
  log('Ctrl-C stops everything; the workflows are kept for the next start.');

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await inbox?.close().catch(() => undefined);
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close().catch(() => undefined);
      await stopDevServer(server);
      await closeCodec();
    })();
    return stopping;
  };
  const done = running.then(
    () => stop(),
    async (err) => {
      await stop();
      throw err;
    },
  );
  // Aborted while the worker was being created: stop everything now (the caller may not have the handle yet).
  if (options.signal?.aborted) void stop();
  else options.signal?.addEventListener('abort', () => void stop(), { once: true });
  const kill = () => {
    if (isRunning(server)) server.kill('SIGKILL');
  };
  return {
    address,
    namespace,
    ...(uiAddress ? { uiAddress } : {}),
    ...(database ? { database } : {}),
    external: !!external,
    taskQueue: worker.taskQueue,
    mcpServers: Object.keys(config.servers),
    ...(mcp.path ? { mcpConfig: mcp.path } : {}),
    ...(agent ? { model: agent.label } : {}),
    ...(inbox ? { inboxUrl: inbox.url } : {}),
    ...(codecServer ? { codecUrl: codecServer.url } : {}),
    done,
    stop,
    kill,
  };
}

/** What `dev` says when no key is set: payloads are stored in plaintext, and the one line that turns encryption on. */
export function encryptionOffNote(): string {
  return (
    `Encryption: off (payloads are stored in plaintext). To encrypt them, start with a key:` +
    ` ${ENCRYPTION_KEYS_ENV}="k1:$(openssl rand -base64 32)" in every process that talks to Temporal (keep it: without it` +
    ' nothing written with it can be read); dev then starts a codec server and its Temporal UI decodes through it'
  );
}
