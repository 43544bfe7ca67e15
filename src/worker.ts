/**
 * `createWorker(options)`: a Temporal worker that runs MCP tool calls as activities, with durable
 * elicitation; and where its workflow code is (the compiled workflows entry and the prebuilt bundles of
 * `npm run build`). The process around it (`durable-mcp worker`) is src/cli/worker-command.ts.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { dataConverterOf, encodedFailureConverterPath, type EncryptionCodec } from './client/codec.js';
import { envConnectConfig, registeredSearchAttributes, resolveEncryption } from './client/connection.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, SEARCH_ATTRIBUTES } from './workflows/visibility.js';
import {
  CredentialSeal,
  envReferenceProblems,
  loadMcpConfigFile,
  loginAuthProvider,
  parseMcpConfig,
  SEAL_KEY_LABEL,
  SessionPool,
  TokenCache,
  type HttpServerConfig,
  type LoginTarget,
  type McpConfig,
  type PoolOptions,
} from './mcp/index.js';
import { loginWorkflowId, SHARED_PRINCIPAL } from './contract/login.js';
import type { InboxOAuthUrls } from './contract/client-metadata.js';
import { inboxPublication } from './inbox/client-metadata.js';
import type { LoginDeps } from './activities/index.js';
import { DEFAULT_TASK_QUEUE } from './contract/message-names.js';
import { durableMcpSinks, startMetricsAtZero, tracesRequested, watchSessions } from './telemetry/metrics.js';
import type { TracingSetup } from './telemetry/tracing.js';

export { DEFAULT_TASK_QUEUE };

const here = dirname(fileURLToPath(import.meta.url)); // dist/src
/** The compiled workflows entry (`dist/src/workflows/index.js`). */
export const workflowsPath = join(here, 'workflows', 'index.js');
/** Which prebuilt bundle: with OpenTelemetry's workflow interceptors (tracing on), with encoded failures (a payload codec). */
export interface BundleVariant {
  traced?: boolean;
  /** Failure messages and stack traces in an encoded payload (src/workflows/failure-converter.cts). */
  encodedFailures?: boolean;
}

/** The prebuilt bundles written by `npm run build` (scripts/bundle-workflows.ts), one for each variant. */
export function workflowBundleFile({ traced = false, encodedFailures = false }: BundleVariant = {}): string {
  return resolve(here, '..', `workflow-bundle${traced ? '-traced' : ''}${encodedFailures ? '-encoded-failures' : ''}.js`);
}

/** The prebuilt bundle written by `npm run build`. */
export const workflowBundlePath = workflowBundleFile();

/** The prebuilt bundle with OpenTelemetry's workflow interceptors (used when tracing is on). */
export const tracedWorkflowBundlePath = workflowBundleFile({ traced: true });

export function prebuiltBundle(variant: BundleVariant = {}): { codePath: string } | undefined {
  const path = workflowBundleFile(variant);
  return existsSync(path) ? { codePath: path } : undefined;
}

/**
 * Workflows kept in the worker's cache. Most durable-mcp workflows sit waiting for a human, and each cached
 * one costs a few hundred KB (about 300 KB for a tool call that waits), so the cache is small: an evicted
 * workflow replays its (short) history on its next task. Raise it (`workerOptions.maxCachedWorkflows` or
 * DURABLE_MCP_MAX_CACHED_WORKFLOWS) for many busy workflows.
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
  /**
   * The payload codec of workflow and activity inputs and results, signals, updates, queries and memo (the activities'
   * own client too): default the keys of DURABLE_MCP_ENCRYPTION_KEYS / DURABLE_MCP_ENCRYPTION_KEYS_FILE (none when unset,
   * bad material throws EncryptionConfigError before anything connects); `false` for none. Appended to
   * `workerOptions.dataConverter`'s codecs, if any.
   */
  encryption?: EncryptionCodec | false;
  /** Servers behind OAuth (`"auth"` in their config; docs/oauth.md). */
  oauth?: OAuthWorkerOptions;
  /** Your workflows, bundled already (`bundleWorkflowCode`): a worker started again reuses it instead of bundling again. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra worker options (e.g. maxCachedWorkflows: 0 to replay on every task, shutdownGraceTime). */
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'>>;
}

export interface OAuthWorkerOptions {
  /**
   * Where authorization servers send the browser back (a server's `auth.redirectUrl` wins): default
   * $DURABLE_MCP_OAUTH_REDIRECT_URL, else `oauth/callback` under the inbox's public URL (`inboxPublicUrl`), else under the
   * config's `notify.inboxUrl`, else the local inbox's http://127.0.0.1:8787/oauth/callback.
   */
  redirectUrl?: string;
  /**
   * The inbox's public base URL (default $DURABLE_MCP_INBOX_PUBLIC_URL, which the inbox reads too): its `oauth/callback` is
   * then the default redirect URL, and when it is https, servers whose logins come back there and whose `auth` names no
   * `clientMetadataUrl` use the inbox's Client ID Metadata Document (`oauth/client-metadata.json` under it) as client id
   * where the authorization server supports one, else dynamic registration.
   */
  inboxPublicUrl?: string;
  /**
   * The seal of the logins' secrets: default keys derived from the payload codec's. Without a codec key the worker
   * refuses servers behind OAuth; `dev` passes a seal of its own key file instead (CredentialSeal.fromKeyFile).
   */
  seal?: CredentialSeal;
  /** The fetch of the OAuth requests (tests). */
  fetchFn?: LoginTarget['fetchFn'];
}

/** Servers behind OAuth and no key to seal their credentials with: the worker does not start. */
export class OAuthEncryptionRequiredError extends Error {
  override name = 'OAuthEncryptionRequiredError';
}

export const OAUTH_REDIRECT_URL_ENV = 'DURABLE_MCP_OAUTH_REDIRECT_URL';

/** The worker's default redirect URI (see OAuthWorkerOptions.redirectUrl); `published`: the inbox's public URLs. */
export function defaultRedirectUrl(config: McpConfig, env: NodeJS.ProcessEnv = process.env, published?: InboxOAuthUrls): string {
  const fromEnv = env[OAUTH_REDIRECT_URL_ENV];
  if (fromEnv) return fromEnv;
  if (published) return published.callback;
  const inbox = config.notify?.inboxUrl;
  if (inbox) return new URL('oauth/callback', inbox.endsWith('/') ? inbox : `${inbox}/`).href;
  return 'http://127.0.0.1:8787/oauth/callback';
}

/** The OAuth side of the activities, or undefined when no enabled server is behind OAuth. Throws without a seal. */
function loginDeps(
  config: McpConfig,
  options: OAuthWorkerOptions | undefined,
  encryption: EncryptionCodec | undefined,
  tokens: TokenCache,
  warnings: string[],
): LoginDeps | undefined {
  const servers = Object.values(config.servers).filter((s) => s.enabled && s.transport === 'http' && s.auth);
  if (servers.length === 0) return undefined;
  const seal = options?.seal ?? (encryption ? new CredentialSeal(encryption.deriveKeys(SEAL_KEY_LABEL)) : undefined);
  if (!seal) {
    throw new OAuthEncryptionRequiredError(
      `server${servers.length > 1 ? 's' : ''} ${servers.map((s) => `"${s.name}"`).join(', ')} sign${servers.length > 1 ? '' : 's'} in with OAuth, ` +
        'whose tokens the login workflow keeps: set DURABLE_MCP_ENCRYPTION_KEYS (see "Encryption") so they are never stored in plaintext, ' +
        'or disable the server. (`durable-mcp dev` seals them with a key of its own instead.)',
    );
  }
  const published = inboxPublication(options?.inboxPublicUrl, 'oauth.inboxPublicUrl');
  if (published?.noDocument) warnings.push(published.noDocument);
  const fallback = options?.redirectUrl ?? defaultRedirectUrl(config, process.env, published);
  const redirectUrl = (server: HttpServerConfig) => server.auth?.redirectUrl ?? fallback;
  return {
    seal,
    tokens,
    redirectUrl,
    // The inbox's document names its callback as the one redirect URI: only logins that come back there may use it.
    clientMetadataUrl: (server: HttpServerConfig) =>
      published?.clientMetadataUrl && redirectUrl(server) === published.callback ? published.clientMetadataUrl : undefined,
    ...(options?.fetchFn ? { fetchFn: options.fetchFn } : {}),
  };
}

export interface DurableMcpWorker {
  readonly worker: Worker;
  readonly pool: SessionPool;
  readonly taskQueue: string;
  /** Problems found at start that leave one server failing (e.g. an unset `${VAR}`); the worker says them. */
  readonly warnings: string[];
  /** The payload codec the worker encrypts with (undefined: payloads in plaintext). */
  readonly encryption?: EncryptionCodec;
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
  const { connectionOptions, namespace, address } = envConnectConfig();
  try {
    const connection = await NativeConnection.connect({ ...connectionOptions, address });
    return { connection, namespace, address };
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${address}: ${(err as Error).message}. Set TEMPORAL_ADDRESS, or run \`durable-mcp dev\` for a local server.`);
  }
}

export async function createWorker(options: CreateWorkerOptions): Promise<DurableMcpWorker> {
  // Bad config fails here, before anything starts.
  const config = resolveMcpConfig(options.mcpConfig);
  const encryption = resolveEncryption(options.encryption);
  const dataConverter = dataConverterOf(encryption, options.workerOptions?.dataConverter);
  const warnings = envReferenceProblems(config);
  // Servers behind OAuth without a key to seal their credentials: refused here, before anything connects.
  const tokens = new TokenCache();
  const logins = loginDeps(config, options.oauth, encryption, tokens, warnings);
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
  const registered = await registeredSearchAttributes(connection, ns);
  const searchAttribute = registered.has(AWAITING_INPUT_SEARCH_ATTRIBUTE);
  // The listing's other search attributes (servers, kinds, next expiry, resolved at) likewise, all or none.
  const listing = SEARCH_ATTRIBUTES.every((a) => registered.has(a.name));
  const pool = new SessionPool(config, {
    ...options.pool,
    // A session of a server behind OAuth sends its login's latest access token (read before every request).
    authProvider: (server, principal) =>
      server.transport === 'http' && server.auth
        ? loginAuthProvider(server.name, () => tokens.latest(loginWorkflowId(server.name, principal ?? SHARED_PRINCIPAL)))
        : options.pool?.authProvider?.(server, principal),
  });
  const shutdownNotice = new AbortController();
  // The OpenTelemetry SDK is loaded only when tracing is on.
  const tracingModule = options.tracing || (options.tracing === undefined && tracesRequested()) ? await import('./telemetry/tracing.js') : undefined;
  const tracing = options.tracing === false ? undefined : (options.tracing ?? tracingModule?.tracingFromEnv());
  const traced = tracing ? tracingModule!.tracingWorkerOptions(tracing) : undefined;
  // A custom workflows module is bundled at start, with the tracing workflow interceptors when tracing is on and the
  // data converter's failure converter. The prebuilt bundles have Temporal's default one or durable-mcp's encoding one.
  const failureConverterPath = dataConverter?.failureConverterPath;
  const bundle =
    failureConverterPath === undefined || failureConverterPath === encodedFailureConverterPath
      ? prebuiltBundle({ traced: !!tracing, encodedFailures: failureConverterPath !== undefined })
      : undefined;
  const envCache = Number(process.env.DURABLE_MCP_MAX_CACHED_WORKFLOWS);
  const maxCachedWorkflows =
    Number.isInteger(envCache) && envCache >= 0 && process.env.DURABLE_MCP_MAX_CACHED_WORKFLOWS ? envCache : DEFAULT_MAX_CACHED_WORKFLOWS;
  const cacheWarning = zeroCacheWarning(options.workerOptions?.maxCachedWorkflows ?? maxCachedWorkflows);
  if (cacheWarning) warnings.push(cacheWarning);
  const worker = await Worker.create({
    shutdownGraceTime: '10s',
    // A dead worker's sticky tasks move to the shared queue after this (default 10 s): recovery after a
    // crash is then bounded by the heartbeat timeout, not by stickiness.
    stickyQueueScheduleToStartTimeout: '3s',
    maxCachedWorkflows,
    ...options.workerOptions,
    ...(dataConverter ? { dataConverter } : {}),
    sinks: { ...durableMcpSinks(), ...traced?.sinks, ...options.workerOptions?.sinks },
    interceptors: {
      ...options.workerOptions?.interceptors,
      client: {
        ...options.workerOptions?.interceptors?.client,
        workflow: [
          ...((traced?.interceptors?.client?.workflow as WorkflowClientInterceptor[] | undefined) ?? []),
          ...((options.workerOptions?.interceptors?.client?.workflow as WorkflowClientInterceptor[] | undefined) ?? []),
        ],
      },
      activity: [...(traced?.interceptors?.activity ?? []), ...(options.workerOptions?.interceptors?.activity ?? [])],
      // A prebuilt bundle has its workflow interceptors built in (the traced one when tracing is on).
      ...(!options.workflowBundle && (options.workflowsPath || !bundle)
        ? { workflowModules: [...(traced?.interceptors?.workflowModules ?? []), ...(options.workerOptions?.interceptors?.workflowModules ?? [])] }
        : {}),
    },
    connection,
    namespace: ns,
    taskQueue,
    activities: createActivities({
      pool,
      shutdown: shutdownNotice.signal,
      searchAttribute,
      listing,
      ...(config.notify ? { notify: config.notify } : {}),
      ...(logins ? { logins } : {}),
    }),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : options.workflowsPath
        ? { workflowsPath: options.workflowsPath }
        : bundle
          ? { workflowBundle: bundle }
          : { workflowsPath }),
  });
  const servers = Object.entries(config.servers)
    .filter(([, s]) => s.enabled)
    .map(([name]) => name);
  startMetricsAtZero(servers, ns, taskQueue);
  const stopWatchingSessions = watchSessions(pool, taskQueue, 1000, servers);
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
    ...(encryption ? { encryption } : {}),
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
  return (
    'maxCachedWorkflows is 0 (the workflow cache is off): Temporal Core then drops queries sent to one workflow at the same time,' +
    ' so `pending` and the inbox can time out.' +
    ' Use it for replay testing only; the default is ' +
    DEFAULT_MAX_CACHED_WORKFLOWS
  );
}
