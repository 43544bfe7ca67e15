// One agent with both MCP clients (docs/agents.md, "Beside Temporal's TemporalMCPClient"): durable-mcp's tools of the
// server "fx" (durableMcpTools: questions, approvals and logins are durable requests of this workflow) and Temporal's
// own `TemporalMCPClient` for the server the worker's AiSdkPlugin knows as "notes" (list and call as activities,
// nothing more). The names cannot collide: durable-mcp's are `server_tool`, TemporalMCPClient's the server's own.
import { TemporalMCPClient, temporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText, stepCountIs } from 'ai';
import { durableMcpTools } from '../../src/ai-sdk/index.js';

export async function sideBySideAgent(prompt: string): Promise<{ text: string; tools: string[] }> {
  const tools = {
    ...(await durableMcpTools(['fx'], { tools: ['fx_ask_name'] })),
    ...(await new TemporalMCPClient({ name: 'notes' }).tools()),
  };
  const result = await generateText({ model: temporalProvider.languageModel('scripted'), prompt, tools, stopWhen: stepCountIs(6), maxRetries: 0 });
  return { text: result.text, tools: Object.keys(tools).sort() };
}
