/** `durable-mcp inbox`: serve the inbox until SIGINT/SIGTERM. */
import { connectClient } from '../client/index.js';
import { EncryptionCodec } from '../client/codec.js';
import { startInbox } from '../inbox/server.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../mcp/index.js';

export async function runInboxCommand(
  opts: { host: string; port: number; temporalUi?: string; json?: boolean },
  log: (line: string) => void = (l) => console.log(l),
): Promise<void> {
  // With --json, one JSON object a line: {"event":"ready",…} once it serves, {"event":"stopped"} at the end.
  const say = (text: string, json: Record<string, unknown>) => log(opts.json ? JSON.stringify(json) : text);
  const { client, address, namespace } = await connectClient();
  // A sign-in's code is sealed for its login with the workers' keys (servers behind OAuth need DURABLE_MCP_ENCRYPTION_KEYS).
  const codec = EncryptionCodec.fromEnv();
  const seal = codec ? new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL)) : undefined;
  const inbox = await startInbox({
    ...(seal ? { sealCode: (code: string) => seal.seal({ code }) } : {}),
    client,
    host: opts.host,
    port: opts.port,
    temporalUi: opts.temporalUi ?? process.env.TEMPORAL_UI_URL,
    taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
  });
  say(`durable-mcp inbox: ${inbox.url} (Temporal ${address}, namespace ${namespace})`, { event: 'ready', url: inbox.url, temporal: { address, namespace } });
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await inbox.close();
  await client.connection.close().catch(() => undefined);
  say('durable-mcp inbox: stopped', { event: 'stopped' });
  process.exit(0);
}
