// The workflows this worker registers, and the library entry for workflow authors (`durable-mcp/workflows`).
// Explicit exports, one block per module: the internal messages between the activity, child workflows and the
// host, and the helpers of the pipeline and the call loop, are not public.

// The workflow: one MCP tool call with durable elicitation.
export { mcpToolCall, type McpToolCallInput } from './mcp-tool-call.js';

// The workflow: the tools of one MCP server, each as the server sent it.
export { mcpListTools, type McpListToolsInput, type McpToolInfo } from './mcp-list-tools.js';

// The workflow helper: the same durable call from inside any workflow.
export { executeMcpTool, type CallOptions, type ElicitationOptions, type ExecuteMcpToolInput } from './tool-call/index.js';

// The workflow: many tool calls, in sequence or parallel groups, with one inbox.
export {
  mcpPipeline,
  type FailurePolicy,
  type PipelineInput,
  type PipelineResult,
  type PipelineStage,
  type PipelineStep,
  type StepOutcome,
} from './pipeline/index.js';

// The workflow: the login of a server behind OAuth (one per server and principal; started by the calls that need it).
export { mcpLogin, type McpLoginInput } from './login/workflow.js';

// The elicitation host: a workflow's pending requests and their handlers, installed on first use or with the state a
// previous run carried (the host class itself is not public).
export { DEFAULT_EXPIRES_IN_MS, DEFAULT_HOLD_FOR_MS, type HostSnapshot } from './host/index.js';
export { installElicitationHost, useElicitationHost } from './host/install.js';

// The public messages of a workflow that asks for input (signals, updates, queries).
export {
  answerSignal,
  pendingDetailsQuery,
  pendingQuery,
  progressQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  loginStatusQuery,
  logoutUpdate,
  type AnswerBy,
  type CallProgress,
  type PendingContext,
  type PendingRequest,
  type SubmitAnswerResult,
  type WaitForPendingInput,
} from './messages.js';

// What a list of workflows shows: the search attributes and the listing memo.
export { AWAITING_INPUT_SEARCH_ATTRIBUTE, LISTING_MEMO_KEY, SEARCH_ATTRIBUTES, awaitingInputKey, type ListingMemo, type Resolution } from './visibility.js';

// Durations of the inputs (ms or "24h").
export { MAX_DURATION_MS, type Duration } from './duration.js';

// The failure types a workflow fails with (re-exported from the contract).
export { FailureTypes, type FailureType } from '../contract/failures.js';
