/** The worker's connection to Temporal when none is given: the settings of @temporalio/envconfig (src/client/connection.ts). */
import { NativeConnection } from '@temporalio/worker';
import { envConnectConfig } from '../client/connection.js';

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
