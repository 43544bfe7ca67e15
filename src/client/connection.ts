/**
 * The one way to reach Temporal: the connection settings of @temporalio/envconfig (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TLS, API key, the Temporal config file), a client connected with them (and with the payload codec
 * of DURABLE_MCP_ENCRYPTION_KEYS, src/codec/), and the one probe
 * of whether the namespace has the DurableMcpAwaitingInput search attribute. The worker (src/worker/) uses the
 * settings and the probe too.
 *
 * @temporalio/envconfig is an optional peer dependency, loaded when present. Without it the plain variables still
 * work (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS); a setting only it reads (a config file
 * or profile, TLS certificates, gRPC metadata) is an error that says to install it, never silently ignored.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type ClientOptions } from '@temporalio/client';
import type { loadClientConnectConfig } from '@temporalio/envconfig';
import { dataConverterOf, resolveEncryption, type EncryptionCodec } from '../codec/index.js';
import { temporalUnreachable } from './errors.js';

/** A connection setting that is invalid, or that needs @temporalio/envconfig when it is not installed (the CLI: exit 2). */
export class ConnectConfigError extends Error {
  override name = 'ConnectConfigError';
}

type ConnectConfig = ReturnType<typeof loadClientConnectConfig>;

/** @temporalio/envconfig's loader, or undefined when the package is not installed (it is an optional peer). */
function envconfigLoader(): typeof loadClientConnectConfig | undefined {
  try {
    return (createRequire(import.meta.url)('@temporalio/envconfig') as { loadClientConnectConfig: typeof loadClientConnectConfig }).loadClientConnectConfig;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes("'@temporalio/envconfig'")) return undefined;
    throw err;
  }
}

/** Where envconfig looks for the Temporal config file when TEMPORAL_CONFIG_FILE is unset. */
function defaultConfigFile(env: NodeJS.ProcessEnv): string | undefined {
  const dir =
    process.platform === 'win32'
      ? env.APPDATA
      : process.platform === 'darwin'
        ? join(env.HOME || homedir(), 'Library', 'Application Support')
        : env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return dir ? join(dir, 'temporalio', 'temporal.toml') : undefined;
}

/**
 * The settings without @temporalio/envconfig: the variables anyone can read, as envconfig reads them. A setting only
 * envconfig reads throws, naming it and the package to install.
 */
export function plainEnvConnectConfig(env: NodeJS.ProcessEnv = process.env): ConnectConfig {
  const needs = Object.keys(env).filter(
    (k) => env[k] !== undefined && (/^TEMPORAL_TLS_/.test(k) || /^TEMPORAL_GRPC_META_/.test(k) || k === 'TEMPORAL_CONFIG_FILE' || k === 'TEMPORAL_PROFILE'),
  );
  const file = defaultConfigFile(env);
  if (file && existsSync(file)) needs.push(`the Temporal config file ${file}`);
  if (needs.length)
    throw new ConnectConfigError(
      `${needs.join(', ')}: reading ${needs.length === 1 ? 'this' : 'these'} needs @temporalio/envconfig, which is not installed. ` +
        'Run `npm install @temporalio/envconfig` (the version of your other @temporalio packages), ' +
        'or connect with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS only.',
    );
  const tls = env.TEMPORAL_TLS;
  if (tls !== undefined && !['1', 'true', '0', 'false'].includes(tls)) throw new ConnectConfigError(`TEMPORAL_TLS must be true, false, 1 or 0, got "${tls}"`);
  const apiKey = env.TEMPORAL_API_KEY;
  return {
    ...(env.TEMPORAL_NAMESPACE !== undefined ? { namespace: env.TEMPORAL_NAMESPACE } : {}),
    connectionOptions: {
      address: env.TEMPORAL_ADDRESS,
      apiKey,
      // As envconfig: TEMPORAL_TLS decides; else an API key turns TLS on.
      tls: tls !== undefined ? (tls === '1' || tls === 'true' ? {} : false) : apiKey !== undefined ? true : undefined,
      metadata: undefined,
    },
  };
}

/**
 * The connection settings of @temporalio/envconfig (of the plain variables when it is not installed); the address
 * defaults to localhost:7233, the namespace to default.
 */
export function envConnectConfig(): { connectionOptions: ConnectConfig['connectionOptions']; address: string; namespace: string } {
  const load = envconfigLoader();
  const { connectionOptions, namespace } = load ? load() : plainEnvConnectConfig();
  return { connectionOptions, address: connectionOptions.address ?? 'localhost:7233', namespace: namespace ?? 'default' };
}

/**
 * Connect a Temporal client from @temporalio/envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key), with the
 * payload codec of the environment's keys (or `encryption`).
 */
export async function connectClient(
  overrides: {
    address?: string;
    namespace?: string;
    interceptors?: ClientOptions['interceptors'];
    /** The payload codec: default the environment's keys (none when unset); `false` for none. */
    encryption?: EncryptionCodec | false;
  } = {},
): Promise<{ client: Client; address: string; namespace: string; encryption?: EncryptionCodec }> {
  // Bad key material fails here, before anything connects.
  const encryption = resolveEncryption(overrides.encryption);
  const env = envConnectConfig();
  const { connectionOptions } = env;
  const address = overrides.address ?? env.address;
  let connection: Connection;
  try {
    connection = await Connection.connect({
      address,
      tls: connectionOptions.tls as any,
      apiKey: connectionOptions.apiKey as any,
      metadata: connectionOptions.metadata,
      connectTimeout: '5s',
    });
  } catch (err) {
    throw temporalUnreachable(address, err);
  }
  const ns = overrides.namespace ?? env.namespace;
  const dataConverter = dataConverterOf(encryption);
  return {
    client: new Client({
      connection,
      namespace: ns,
      ...(overrides.interceptors ? { interceptors: overrides.interceptors } : {}),
      ...(dataConverter ? { dataConverter } : {}),
    }),
    address,
    namespace: ns,
    ...(encryption ? { encryption } : {}),
  };
}

/** The custom search attributes of `namespace` (empty when the server cannot say). A client or a worker connection. */
export async function registeredSearchAttributes(connection: { operatorService: Connection['operatorService'] }, namespace: string): Promise<Set<string>> {
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace });
    return new Set(Object.keys(res.customAttributes ?? {}));
  } catch {
    return new Set();
  }
}
