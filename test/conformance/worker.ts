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
 * differs (src/mcp/request-ids.ts); docs/conformance.md says more.
 *
 * Env: TEMPORAL_ADDRESS, DURABLE_MCP_TASK_QUEUE. Prints `ready` when it polls; SIGTERM stops it.
 */
import { fileURLToPath } from 'node:url';
import { parseMcpConfig, type McpConfig, type ServerConfig } from '../../src/mcp/index.js';
import { installQuietRuntime } from '../../src/testing/temporal-server.js';
import { createWorker } from '../../src/worker.js';

const LOOPBACK_URL = /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/.*)?$/;

/** A config whose servers are the loopback URLs calls name, each parsed on first use. */
export function scenarioServers(): McpConfig {
  const servers = new Proxy({} as Record<string, ServerConfig>, {
    get(target, name) {
      if (typeof name === 'string' && !(name in target) && LOOPBACK_URL.test(name)) {
        target[name] = parseMcpConfig({ mcpServers: { [name]: { url: name } } }, 'conformance server').servers[name];
      }
      return target[name as string];
    },
  });
  return { servers };
}

installQuietRuntime();
const worker = await createWorker({
  mcpConfig: scenarioServers(),
  taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
  pool: { idleTimeoutMs: 0 },
  workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
const running = worker.run();
console.log(`ready: task queue ${worker.taskQueue}`);
await running;
