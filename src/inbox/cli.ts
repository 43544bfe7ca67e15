/** `durable-mcp inbox`: serve the inbox until SIGINT/SIGTERM. */
import { connectClient } from '../client/index.js';
import { startInbox } from './server.js';

export async function runInboxCommand(opts: { host: string; port: number; temporalUi?: string }, log: (line: string) => void = (l) => console.log(l)): Promise<void> {
  const { client, address, namespace } = await connectClient();
  const inbox = await startInbox({ client, host: opts.host, port: opts.port, temporalUi: opts.temporalUi ?? process.env.TEMPORAL_UI_URL, taskQueue: process.env.DURABLE_MCP_TASK_QUEUE });
  log(`durable-mcp inbox: ${inbox.url} (Temporal ${address}, namespace ${namespace})`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await inbox.close();
  await client.connection.close().catch(() => undefined);
  log('durable-mcp inbox: stopped');
  process.exit(0);
}
