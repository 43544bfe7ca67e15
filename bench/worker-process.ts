/**
 * A durable-mcp worker process that also registers the benchmark workflows (`benchPing`):
 * `createWorker({ workflowsPath: dist/bench/workflows.js })`, exactly as a user registers their own
 * workflows module. Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DURABLE_MCP_TASK_QUEUE, and DURABLE_MCP_ENCRYPTION_KEYS (or
 * DURABLE_MCP_ENCRYPTION_KEYS_FILE) for a worker that encrypts its payloads (B8: createWorker reads them); arg: --mcp-config.
 * Prints `bench worker: ready` once polling; SIGTERM/SIGINT shut it down gracefully.
 */
import { fileURLToPath } from 'node:url';
import { connectFromEnv, createWorker } from '../src/worker.js';
import { installRuntime, mcpConfigPathFrom } from '../src/cli/worker-command.js';
import { loadMcpConfigFile } from '../src/mcp/index.js';

installRuntime();
const config = loadMcpConfigFile(mcpConfigPathFrom(process.argv.slice(2)));
const { connection, namespace } = await connectFromEnv();
// Benchmark B2's baseline: BENCH_POOL_IDLE_MS=0 closes every session as soon as it is idle (a spawn per call).
const idle = process.env.BENCH_POOL_IDLE_MS;
const w = await createWorker({
  connection,
  namespace,
  taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
  mcpConfig: config,
  ...(idle !== undefined && idle !== '' ? { pool: { idleTimeoutMs: Number(idle) } } : {}),
  workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
});
const stop = () => w.shutdown();
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
console.error('bench worker: ready');
try {
  await w.run();
} finally {
  await connection.close().catch(() => undefined);
}
console.error('bench worker: stopped');
