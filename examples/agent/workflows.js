// The project's workflows: durable-mcp's own (the worker needs them), the ready-made agent `mcpAgent` (what
// `npx durable-mcp agent` starts), and an agent of ours. The model is Temporal's own (`temporalProvider` from
// `@temporalio/ai-sdk/workflow`: each call an activity of AiSdkPlugin), the tools durable-mcp's (durableMcpTools): a
// tool's question and the transfer's approval are durable requests of this workflow.
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText, stepCountIs } from 'ai';
import { durableMcpTools } from 'durable-mcp/ai-sdk';
export * from 'durable-mcp/workflows';
export { mcpAgent } from 'durable-mcp/ai-sdk';

/** An assistant that may ask what it can spend and pay someone (each transfer approved by a person first). */
export async function assistant({ prompt, expiresIn, holdFor }) {
  // expiresIn: how long a question waits for its person; holdFor: how long the waiting call keeps its MCP session.
  const tools = await durableMcpTools(['bank'], { needsApproval: ['bank_transfer'], ...(expiresIn ? { expiresIn } : {}), ...(holdFor ? { holdFor } : {}) });
  const result = await generateText({ model: temporalProvider.languageModel('assistant'), prompt, tools, stopWhen: stepCountIs(6), maxRetries: 0 });
  return result.text;
}
