import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { ToolResult } from '../contract/index.js';
import { useElicitationHost } from './host.js';
import { callMcpTool, type McpToolCallInput } from './tool-call.js';

/** The workflow: one MCP tool call with durable elicitation. Returns the tool's result. */
export async function mcpToolCall(input: McpToolCallInput): Promise<ToolResult> {
  useElicitationHost();
  const result = await callMcpTool(input);
  await condition(allHandlersFinished);
  return result;
}
