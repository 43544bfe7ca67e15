/**
 * The one way to reach Temporal: the connection settings of @temporalio/envconfig (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TLS, API key, the Temporal config file), a client connected with them (and with the payload codec
 * of DURABLE_MCP_ENCRYPTION_KEYS, src/codec/), and the one probe
 * of whether the namespace has the DurableMcpAwaitingInput search attribute. The worker (src/worker/) uses the
 * settings and the probe too.
 */
import { Client, Connection, type ClientOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, SEARCH_ATTRIBUTES } from '../workflows/visibility.js';
import { dataConverterOf, resolveEncryption, type EncryptionCodec } from '../codec/index.js';
import { temporalUnreachable } from './errors.js';

/** The connection settings of @temporalio/envconfig; the address defaults to localhost:7233, the namespace to default. */
export function envConnectConfig(): { connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions']; address: string; namespace: string } {
  const { connectionOptions, namespace } = loadClientConnectConfig();
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

/**
 * Whether `namespace` has the DurableMcpAwaitingInput search attribute (false when the server cannot say). A client
 * or a worker connection (both have the operator service).
 */
export async function awaitingInputRegistered(connection: { operatorService: Connection['operatorService'] }, namespace: string): Promise<boolean> {
  return (await registeredSearchAttributes(connection, namespace)).has(AWAITING_INPUT_SEARCH_ATTRIBUTE);
}

/** Whether every search attribute of the listing (SEARCH_ATTRIBUTES: awaiting input, servers, kinds, next expiry, resolved at) is registered. */
export async function listingAttributesRegistered(connection: { operatorService: Connection['operatorService'] }, namespace: string): Promise<boolean> {
  const names = await registeredSearchAttributes(connection, namespace);
  return SEARCH_ATTRIBUTES.every((a) => names.has(a.name));
}
