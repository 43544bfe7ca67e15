// The workflows this worker registers, and the library entry for workflow authors.
export { mcpToolCall } from './mcp-tool-call.js';
export { callMcpTool, type CallOptions, type ElicitationOptions, type McpToolCallInput } from './tool-call.js';
export { useElicitationHost, ElicitationHost, DEFAULT_EXPIRES_IN_MS, DEFAULT_HOLD_FOR_MS, type HostSnapshot } from './host.js';
export * from './messages.js';
export { mcpPipeline, resolveArguments, type PipelineInput, type PipelineResult, type PipelineStage, type PipelineStep, type StepOutcome, type FailurePolicy } from './pipeline.js';
