// The project's workflows: durable-mcp's own (the worker needs them) and an agent of ours. The model runs through
// AiSdkPlugin's model activity (agentModel), the tools through durable-mcp (durableMcpTools): a tool's question and
// the transfer's approval are durable requests of this workflow.
import { generateText, stepCountIs } from 'ai';
import { agentModel, durableMcpTools } from 'durable-mcp/ai-sdk';
export * from 'durable-mcp/workflows';

/** An assistant that may ask what it can spend and pay someone (each transfer approved by a person first). */
export async function assistant({ prompt, expiresIn }) {
  const tools = await durableMcpTools(['bank'], { needsApproval: ['bank_transfer'], ...(expiresIn ? { expiresIn } : {}) });
  const result = await generateText({ model: agentModel('assistant'), prompt, tools, stopWhen: stepCountIs(6), maxRetries: 0 });
  return result.text;
}
