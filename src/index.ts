// durable-mcp: the public entry. Workflow code imports `durable-mcp/workflows` instead (no Node there).
export {
  AnswerSchema,
  ElicitResultSchema,
  RequestSchema,
  ToolResultSchema,
  answerToElicitResult,
  checkAnswer,
  deriveRequestId,
  elicitationToRequest,
  validateElicitationContent,
  MAX_ANSWER_BYTES,
  type Answer,
  type ElicitParams,
  type ElicitResult,
  type Request,
  type ToolResult,
  type ContentValidation,
  type ValidationIssue,
} from './contract/index.js';
export {
  McpConfigError,
  McpConnectError,
  McpSource,
  McpToolCallError,
  PoolClosedError,
  ServerDisabledError,
  SessionPool,
  UnknownServerError,
  UnknownToolError,
  exposedToolName,
  loadMcpConfigFile,
  parseMcpConfig,
  sanitize,
  type McpConfig,
  type ServerConfig,
  type ServerStatus,
  type SourceTool,
  type WaitFor,
} from './mcp/index.js';
export { createActivities, type ActivityDeps, type CallMcpToolInput, type CallMcpToolOutcome } from './activities/index.js';
export { createWorker, connectFromEnv, DEFAULT_TASK_QUEUE, type CreateWorkerOptions, type DurableMcpWorker } from './worker.js';
export {
  DurableMcpClient,
  InvalidAnswerError,
  NoSuchPendingRequestError,
  SearchAttributeNotRegisteredError,
  TemporalUnreachableError,
  UnknownWorkflowError,
  connectClient,
  type AwaitingWorkflow,
  type StartToolCallOptions,
} from './client/index.js';
export {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  answerSignal,
  awaitingInputKey,
  pendingDetailsQuery,
  pendingQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type PendingContext,
  type PendingRequestDetails,
  type SubmitAnswerResult,
  type WaitForPendingInput,
} from './workflows/messages.js';
export { findTemporalBinary, TemporalBinaryNotFoundError, type BinaryLocation } from './temporal/binaries.js';
export { workflowsPath, workflowBundlePath } from './bundle.js';
export { createInboxApp, startInbox, InboxOptionError, InboxTokenRequiredError, INBOX_TOKEN_ENV, type InboxHandle, type InboxOptions } from './inbox/index.js';
export { notificationBody } from './activities/index.js';
export type { NotifyConfig } from './mcp/index.js';
export type { NotifyPendingInput } from './workflows/messages.js';
