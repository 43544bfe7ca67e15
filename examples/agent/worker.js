// `npm start`: the project's worker, with both plugins: durable-mcp's (the MCP servers of mcp.json, started over stdio)
// and @temporalio/ai-sdk's (the model calls). The model is the scripted one of model.js, or OpenAI's when
// OPENAI_API_KEY is set (`npm install @ai-sdk/openai` first). Temporal at TEMPORAL_ADDRESS (default localhost:7233),
// task queue DURABLE_MCP_TASK_QUEUE (default "agents"). Ctrl-C stops it.
import { fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DurableMcpPlugin } from 'durable-mcp/worker';
import { scriptedProvider } from './model.js';

/** The model provider: OpenAI with a key, else the scripted model (no LLM, no network). */
async function modelProvider() {
  if (!process.env.OPENAI_API_KEY)
    return { provider: scriptedProvider(), models: 'the scripted model "assistant" (no LLM: it asks for a budget, then pays bob)' };
  const { openai } = await import('@ai-sdk/openai').catch(() => {
    throw new Error(
      'OPENAI_API_KEY is set, but @ai-sdk/openai is not installed: run `npm install @ai-sdk/openai`, or unset OPENAI_API_KEY for the scripted model',
    );
  });
  return { provider: openai, models: 'OpenAI (OPENAI_API_KEY): name a model such as gpt-4o-mini' };
}

const address = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
const taskQueue = process.env.DURABLE_MCP_TASK_QUEUE ?? 'agents';
const { provider, models } = await modelProvider();
const connection = await NativeConnection.connect({ address }).catch((err) => {
  console.error(`cannot reach Temporal at ${address} (${err.message}): start one (\`npx durable-mcp temporal server start-dev\`) or set TEMPORAL_ADDRESS`);
  process.exit(3);
});
const durableMcp = new DurableMcpPlugin({ mcpConfig: fileURLToPath(new URL('./mcp.json', import.meta.url)) });
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
  plugins: [durableMcp, new AiSdkPlugin({ modelProvider: provider })],
});
for (const warning of durableMcp.warnings) console.warn(`warning: ${warning}`);
console.log(`worker ready: Temporal ${address}, task queue "${taskQueue}", MCP server "bank" (mcp.json), model: ${models}. Ctrl-C stops it.`);
try {
  await worker.run(); // until SIGINT/SIGTERM
} finally {
  await connection.close();
}
