/**
 * The conformance run's worker process: durable-mcp's worker (`createWorker`: the session pool, the activities,
 * durable-mcp's workflows and `conformanceListTools`), run once for the whole run, whose MCP config names the
 * scenarios' servers at run time. A scenario's server gets its port only when the conformance runner starts it,
 * right before it spawns the client, so no config written beforehand can name it; here a server name that is a
 * loopback http URL (`http://localhost:PORT/path`) is that server, parsed as the MCP config parses `{ "url": NAME }`
 * the first time a call names it. Only this harness does that: a worker whose workflow input could pick any URL
 * would let every Temporal client point it anywhere.
 *
 * A session is closed as soon as its call releases it (`idleTimeoutMs: 0`), as a client done with its calls closes its
 * connection (the suite's reference client does): the pool's default keeps it 5 minutes, and an open session
 * (sse-retry's GET stream) keeps the scenario's server from stopping. So each round of a 2026-07-28 call runs on a
 * fresh session, the hardest case for sep-2322-client-request-state's check that a retried round's JSON-RPC id
 * differs (src/mcp/jsonrpc-ids.ts); docs/conformance.md says more.
 *
 * Servers behind OAuth (the `auth/*` scenarios): the client writes, before its first call, the `auth` of the scenario's
 * server (`"oauth"`, or a pre-registered client's id and secret from the scenario's context) into
 * `$CONFORMANCE_AUTH_DIR/<encodeURIComponent(url)>.json`, and that server is parsed with it (a file, not the workflow
 * input: a client secret must not travel through history). The logins' secrets are sealed with a key made for this
 * run, and this process also runs the inbox, whose `/oauth/callback` is the worker's redirect URL: the client's
 * sign-in bot opens a login's authorization URL as a browser would and ends there.
 *
 * Env: TEMPORAL_ADDRESS, DURABLE_MCP_TASK_QUEUE, CONFORMANCE_AUTH_DIR. Prints `ready` when it polls; SIGTERM stops it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { startInbox } from '../../src/inbox/index.js';
import { CredentialSeal, SEAL_KEY_LABEL, parseMcpConfig, type McpConfig, type ServerConfig } from '../../src/mcp/index.js';
import { installQuietRuntime } from '../../src/testing/temporal-server.js';
import { createWorker } from '../../src/worker.js';
import { authFileOf } from './auth-file.js';

const LOOPBACK_URL = /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/.*)?$/;

/**
 * A server behind OAuth that no call names: the worker turns its OAuth side on only when its config has one at start,
 * and the scenarios' servers come later.
 */
const OAUTH_PLACEHOLDER = 'conformance-oauth-placeholder';

/** A config whose servers are the loopback URLs calls name, each parsed on first use. */
export function scenarioServers(authDir: string | undefined): McpConfig {
  const placeholder = parseMcpConfig({ mcpServers: { [OAUTH_PLACEHOLDER]: { url: 'http://127.0.0.1:9/mcp', auth: 'oauth' } } }, 'conformance');
  const servers = new Proxy({ ...placeholder.servers } as Record<string, ServerConfig>, {
    get(target, name) {
      if (typeof name === 'string' && !(name in target) && LOOPBACK_URL.test(name)) {
        const file = authDir ? authFileOf(authDir, name) : undefined;
        const auth = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : undefined;
        target[name] = parseMcpConfig({ mcpServers: { [name]: { url: name, ...(auth ? { auth } : {}) } } }, 'conformance server').servers[name];
      }
      return target[name as string];
    },
  });
  return { servers };
}

installQuietRuntime();
const codec = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('conformance'), 'conformance'));
const seal = new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL));
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
// The states the worker signs are checked with the same seal's key; the suites' bot signs in many times from one address.
const inbox = await startInbox({
  client: new Client({ connection }),
  host: '127.0.0.1',
  port: 0,
  sealCode: (code) => seal.seal({ code }),
  stateMac: seal.stateMac(),
  callbackRate: { burst: 1_000, perSecond: 100 },
});
const worker = await createWorker({
  mcpConfig: scenarioServers(process.env.CONFORMANCE_AUTH_DIR),
  taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
  pool: { idleTimeoutMs: 0 },
  encryption: false,
  oauth: { seal, redirectUrl: new URL('oauth/callback', inbox.url).href },
  workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
const running = worker.run();
console.log(`ready: task queue ${worker.taskQueue}`);
await running;
await inbox.close();
await connection.close();
