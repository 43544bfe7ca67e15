/**
 * Example: your own Temporal worker, running your workflows (examples/workflows.ts: `planDinner`) and durable-mcp's in
 * one process, through DurableMcpPlugin (docs/workflows.md, "Your own worker"). In your project, import from
 * 'durable-mcp/worker'; this example imports the source.
 *
 *   node dist/examples/worker.js    # Temporal at $TEMPORAL_ADDRESS (default localhost:7233), MCP servers in $MCP_CONFIG or mcp.json
 */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DurableMcpPlugin } from '../src/worker.js';

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
// Bad MCP config, bad key material (DURABLE_MCP_ENCRYPTION_KEYS) or OAuth servers without a key throw here.
const plugin = new DurableMcpPlugin({ mcpConfig: process.env.MCP_CONFIG ?? 'mcp.json' });
const worker = await Worker.create({
  connection,
  taskQueue: 'dinner',
  // Your module: your workflows, and durable-mcp's (its last line: `export * from 'durable-mcp/workflows'`).
  workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
  plugins: [plugin],
});
for (const warning of plugin.warnings) console.warn(`warning: ${warning}`);
try {
  await worker.run(); // until SIGINT/SIGTERM; waiting calls are released first, the MCP sessions closed after
} finally {
  await connection.close();
}
