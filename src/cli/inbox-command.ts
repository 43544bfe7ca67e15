/** `durable-mcp inbox`: serve the inbox until SIGINT/SIGTERM. */
import { connectClient } from '../client/index.js';
import { resolveEncryption } from '../codec/index.js';
import { StateMac } from '../codec/state-mac.js';
import { inboxPublication } from '../inbox/client-metadata.js';
import { startInbox } from '../inbox/server.js';
import { signInFromEnv } from '../inbox/sign-in.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../mcp/index.js';

export async function runInboxCommand(
  opts: { host: string; port: number; temporalUi?: string; publicUrl?: string; json?: boolean },
  log: (line: string) => void = (l) => console.log(l),
): Promise<void> {
  // With --json, one JSON object a line: {"event":"ready",…} once it serves, {"event":"stopped"} at the end.
  const say = (text: string, json: Record<string, unknown>) => log(opts.json ? JSON.stringify(json) : text);
  // A bad public URL fails here, naming the flag (or the variable), before anything connects.
  inboxPublication(opts.publicUrl, '--public-url');
  // Bad key material, or no key where encryption is required (DURABLE_MCP_REQUIRE_ENCRYPTION), stops the inbox here.
  // A sign-in's code is sealed for its login with the workers' keys (servers behind OAuth need DURABLE_MCP_ENCRYPTION_KEYS).
  const codec = resolveEncryption(undefined, process.env, { who: 'the inbox' });
  const { client, address, namespace } = await connectClient({ encryption: codec ?? false });
  const seal = codec ? new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL)) : undefined;
  // The sign-ins' states are checked with the key the workers sign them with ($DURABLE_MCP_OAUTH_STATE_KEYS, else the seal's).
  const stateMac = seal?.stateMac() ?? StateMac.resolve(undefined);
  const signIn = signInFromEnv();
  const inbox = await startInbox({
    ...(seal ? { sealCode: (code: string) => seal.seal({ code }) } : {}),
    ...(stateMac ? { stateMac } : {}),
    client,
    host: opts.host,
    port: opts.port,
    temporalUi: opts.temporalUi ?? process.env.TEMPORAL_UI_URL,
    taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
    // Sign-in with OpenID Connect ($DURABLE_MCP_INBOX_OIDC_*; docs/people.md); answer links read $DURABLE_MCP_ANSWER_LINK_KEY.
    ...(signIn ? { signIn } : {}),
  });
  say(`durable-mcp inbox: ${inbox.url} (Temporal ${address}, namespace ${namespace})`, {
    event: 'ready',
    url: inbox.url,
    temporal: { address, namespace },
    ...(inbox.clientMetadataUrl ? { clientMetadataUrl: inbox.clientMetadataUrl } : {}),
  });
  if (inbox.clientMetadataUrl && !opts.json) log(`durable-mcp inbox: its Client ID Metadata Document (the logins' client id): ${inbox.clientMetadataUrl}`);
  for (const warning of inbox.warnings) say(`durable-mcp inbox: warning: ${warning}`, { event: 'warning', message: warning });
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
