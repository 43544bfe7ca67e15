// durable-mcp: the public entry, one export block per module. Workflow code imports `durable-mcp/workflows` instead
// (no Node there); Temporal clients may import just `durable-mcp/client`; tests `durable-mcp/testing`.

// The contract: Request/Answer/ElicitResult shapes and the seed mappings (src/contract/index.ts has the tables).
export {
  AnswerSchema,
  ElicitResultSchema,
  RequestSchema,
  ToolResultSchema,
  type Answer,
  type ElicitParams,
  type ElicitResult,
  type Request,
  type ToolResult,
} from './contract/schemas.js';
export { answerToElicitResult, elicitationToRequest } from './contract/mapping.js';
export { deriveRequestId } from './contract/id.js';
export { validateElicitationContent, type ContentValidation, type ValidationIssue } from './contract/content.js';
export { checkAnswer, MAX_ANSWER_BYTES } from './contract/answer.js';
export { FAILURES, FailureTypes, isFailureType, type FailureType } from './contract/failures.js';
export type { ProtocolEra } from './contract/era.js';

// MCP without Temporal: the config and `McpSource` (both eras, elicitation through your `waitFor`).
export { loadMcpConfigFile, parseMcpConfig, exposedToolName, McpConfigError, type McpConfig, type NotifyConfig, type ServerConfig } from './mcp/config.js';
export { McpSource, type ServerStatus, type SourceTool, type WaitFor } from './mcp/source.js';
export { McpConnectError, McpToolCallError } from './mcp/session.js';
export { MAX_TOOL_PAGES, type McpToolInfo } from './mcp/tool-list.js';
export { RoundLimitExceededError, UnknownToolError, UnsupportedInputRequestError } from './mcp/errors.js';
export { SessionPool, type PoolOptions } from './mcp/pool.js';

// The activities, for a worker you assemble yourself (`createWorker` does it for you).
export { createActivities, type ActivityDeps, type CallMcpToolInput, type CallMcpToolOutcome } from './activities/index.js';

// The worker.
export {
  createWorker,
  connectFromEnv,
  workflowsPath,
  workflowBundlePath,
  DEFAULT_TASK_QUEUE,
  type CreateWorkerOptions,
  type DurableMcpWorker,
} from './worker.js';

// The client (also `durable-mcp/client`).
export {
  connectClient,
  DurableMcpClient,
  AnswerRejectedError,
  AnswerTooLargeError,
  InvalidAnswerError,
  InvalidArgumentsFailure,
  InvalidInputFailure,
  McpConfigInvalidFailure,
  McpServerUnavailableFailure,
  NoSuchPendingRequestError,
  NoWorkerError,
  RequestAlreadyResolvedError,
  RequestExpiredError,
  ResultTooLargeFailure,
  SearchAttributeNotRegisteredError,
  TemporalUnreachableError,
  ToolCallCancelledError,
  ToolCallFailedError,
  ToolNotAllowedFailure,
  UnknownServerFailure,
  UnknownToolFailure,
  UnknownWorkflowError,
  UpdateLimitError,
  WorkflowClosedError,
  WorkflowTaskFailingError,
  type AwaitingWorkflow,
  type CallFailureDetails,
  type ListToolsOptions,
  type SignInPending,
  type StartToolCallOptions,
} from './client/index.js';

// Payload encryption (also `durable-mcp/client`): the codec every process uses when DURABLE_MCP_ENCRYPTION_KEYS is set.
export {
  dataConverterOf,
  DecryptionFailedError,
  EncryptionCodec,
  EncryptionConfigError,
  encryptionKeysFromEnv,
  generateEncryptionKey,
  parseEncryptionKeys,
  UnknownEncryptionKeyError,
  ENCRYPTED_ENCODING,
  ENCRYPTION_KEYS_ENV,
  ENCRYPTION_KEYS_FILE_ENV,
  KEY_ID_METADATA,
  type EncryptionKey,
} from './client/index.js';

// Durations (a Temporal Duration: ms or "24h").
export { durationMs, optionalDurationMs, InvalidDurationError, MAX_DURATION_MS, type Duration } from './workflows/duration.js';

// The messages of a workflow that asks for input (also `durable-mcp/workflows`).
export {
  answerSignal,
  pendingDetailsQuery,
  pendingQuery,
  progressQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type AnswerBy,
  type CallProgress,
  type PendingContext,
  type PendingRequestDetails,
  type SubmitAnswerResult,
  type WaitForPendingInput,
} from './workflows/messages.js';
export { type NotifyPendingInput } from './workflows/internal-messages.js';
export {
  AWAITING_INPUT_SEARCH_ATTRIBUTE,
  LISTING_MEMO_KEY,
  SEARCH_ATTRIBUTES,
  awaitingInputKey,
  type ListingMemo,
  type Resolution,
} from './workflows/visibility.js';

// The inbox (a web page where a person answers).
export { createInboxApp, startInbox, InboxOptionError, InboxTokenRequiredError, INBOX_TOKEN_ENV, type InboxHandle, type InboxOptions } from './inbox/index.js';

// Finding the Temporal CLI and test server (pip, PATH, env).
export { findTemporalBinary, TemporalBinaryNotFoundError, type BinaryLocation } from './cli/temporal-binaries.js';
