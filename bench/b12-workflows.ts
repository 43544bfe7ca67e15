/**
 * B12's workflows module: durable-mcp's workflows and `mcpAgent`, and the same agent on Temporal's own MCP client
 * (`TemporalMCPClient` from `@temporalio/ai-sdk/workflow`, the model through `temporalProvider`): its tools listed by the
 * `<server>-listTools` activity and each call run by `<server>-callTool`.
 */
import { TemporalMCPClient, temporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText, stepCountIs } from 'ai';

export * from '../src/workflows/index.js';
export { mcpAgent } from '../src/ai-sdk/index.js';

/** One agent on TemporalMCPClient: the tools of `server` (an MCP client factory of the worker's AiSdkPlugin), the model's loop. */
export async function temporalMcpAgent(input: { prompt: string; server: string; model: string }): Promise<{ text: string }> {
  const tools = await new TemporalMCPClient({ name: input.server }).tools();
  const r = await generateText({ model: temporalProvider.languageModel(input.model), prompt: input.prompt, tools, stopWhen: stepCountIs(5), maxRetries: 0 });
  return { text: r.text };
}
