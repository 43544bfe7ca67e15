/**
 * The one way to reach Temporal: the connection settings of @temporalio/envconfig (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TLS, API key, the Temporal config file), a client connected with them, and the one probe
 * of whether the namespace has the DurableMcpAwaitingInput search attribute. The worker (src/worker.ts) uses the
 * settings and the probe too.
 */
import { Client, Connection, type ClientOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE } from '../workflows/messages.js';
import { TemporalUnreachableError } from './errors.js';

/** The connection settings of @temporalio/envconfig; the address defaults to localhost:7233, the namespace to default. */
export function envConnectConfig(): { connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions']; address: string; namespace: string } {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  return { connectionOptions, address: connectionOptions.address ?? 'localhost:7233', namespace: namespace ?? 'default' };
}

/** Connect a Temporal client from @temporalio/envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS, API key). */
export async function connectClient(
  overrides: { address?: string; namespace?: string; interceptors?: ClientOptions['interceptors'] } = {},
): Promise<{ client: Client; address: string; namespace: string }> {
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
    throw new TemporalUnreachableError(address, err);
  }
  const ns = overrides.namespace ?? env.namespace;
  return {
    client: new Client({ connection, namespace: ns, ...(overrides.interceptors ? { interceptors: overrides.interceptors } : {}) }),
    address,
    namespace: ns,
  };
}

/**
 * Whether `namespace` has the DurableMcpAwaitingInput search attribute (false when the server cannot say). A client
 * or a worker connection (both have the operator service).
 */
export async function awaitingInputRegistered(connection: { operatorService: Connection['operatorService'] }, namespace: string): Promise<boolean> {
  try {
    const res = await connection.operatorService.listSearchAttributes({ namespace });
    return Object.prototype.hasOwnProperty.call(res.customAttributes ?? {}, AWAITING_INPUT_SEARCH_ATTRIBUTE);
  } catch {
    return false;
  }
}
