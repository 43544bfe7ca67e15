// The workflows this worker registers, and the library entry for workflow authors (`durable-mcp/workflows`).
// Explicit exports: the internal messages between the activity, child workflows and the host are not public.
export { mcpToolCall, type McpToolCallWorkflowInput } from './mcp-tool-call.js';
export { executeMcpTool, type CallOptions, type ElicitationOptions, type McpToolCallInput } from './tool-call.js';
export { useElicitationHost, ElicitationHost, DEFAULT_EXPIRES_IN_MS, DEFAULT_HOLD_FOR_MS, type HostSnapshot } from './host/index.js';
export {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  answerSignal,
  awaitingInputKey,
  pendingDetailsQuery,
  pendingQuery,
  progressQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type CallProgress,
  type PendingContext,
  type PendingRequestDetails,
  type SubmitAnswerResult,
  type WaitForPendingInput,
} from './messages.js';
export { MAX_DURATION_MS, type Duration } from './duration.js';
export { FAILURES, FailureTypes, type FailureType } from '../contract/failures.js';
export { mcpPipeline, resolveArguments, type PipelineInput, type PipelineResult, type PipelineStage, type PipelineStep, type StepOutcome, type FailurePolicy } from './pipeline.js';
