/**
 * A caller of the Nexus service `durable-mcp` in TypeScript, for the tests (test/nexus): a workflow in its own namespace
 * that starts one operation on an endpoint and returns its result, as a Python or Go caller does. It knows the service
 * by its name and operations only (the contract is plain JSON), like a caller in another language.
 */
import * as nexus from 'nexus-rpc';
import { createNexusServiceClient, defineQuery, setHandler } from '@temporalio/workflow';

const durableMcp = nexus.service('durable-mcp', {
  callTool: nexus.operation<Record<string, unknown>, { output: string; isError: boolean; metadata?: Record<string, unknown> }>(),
  listTools: nexus.operation<Record<string, unknown>, Array<{ name: string }>>(),
  runPipeline: nexus.operation<Record<string, unknown>, { status: string; steps: Record<string, unknown>; runs: number }>(),
});

/** The operation's token, once started (`{t, ns, wid}` in base64url: the backing workflow). */
export const operationTokenQuery = defineQuery<string | undefined>('operationToken');

export async function nexusCaller(endpoint: string, operation: 'callTool' | 'listTools' | 'runPipeline', input: Record<string, unknown>): Promise<unknown> {
  const started: { token?: string } = {};
  setHandler(operationTokenQuery, () => started.token);
  const client = createNexusServiceClient({ endpoint, service: durableMcp });
  const handle = await client.startOperation(operation, input, { scheduleToCloseTimeout: '1h' });
  started.token = handle.token;
  return handle.result();
}
