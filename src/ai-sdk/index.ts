// `durable-mcp/ai-sdk`: durable-mcp as the tool layer of AI SDK agents (docs/agents.md). Workflow code:
// import it in your workflows module, beside `export * from 'durable-mcp/workflows'`, in a worker with both
// `DurableMcpPlugin` and `@temporalio/ai-sdk`'s `AiSdkPlugin`.

// The tools: each MCP tool of the servers as an AI SDK tool that runs durably in the calling workflow.
export { durableMcpTools, exposedToolName, type AgentToolCall, type DurableMcpToolsOptions, type NeedsApproval } from './tools.js';

// The model: Temporal's own (`temporalProvider` from `@temporalio/ai-sdk/workflow`) without the call's abortSignal.
export { agentModel } from './model.js';

// The workflow: an agent (the AI SDK's loop) with durable MCP tools.
export { mcpAgent, DEFAULT_MAX_STEPS, DEFAULT_STEPS_PER_RUN, MAX_RECORDED_CALLS, type McpAgentInput, type McpAgentResult } from './agent.js';
