// durable-mcp/client: the one path from a Temporal client to durable-mcp (connection, DurableMcpClient, listing, errors).
export { connectClient } from './connection.js';
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
} from '../codec/index.js';
export { DurableMcpClientPlugin, type DurableMcpClientPluginOptions } from '../codec/plugin.js';
export { DurableMcpClient, FIRST_ATTEMPT_WAIT_MS, SIGNAL_HINT, type FirstAttempt, type StartToolCallOptions } from './client.js';
export { type ListToolsOptions, type SignInPending } from './sign-in.js';
export {
  ListOptionError,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  type AwaitingWorkflow,
  type ListFilter,
  type ListOptions,
  type ListPage,
  type ListedRequest,
  type ResolvedRow,
  type UnlistedWorkflow,
} from './listing.js';
export {
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
  type CallFailureDetails,
} from './errors.js';
export { DEFAULT_TASK_QUEUE } from '../contract/message-names.js';
export { FailureTypes } from '../contract/failures.js';
export type { AnswerBy, CallProgress, ListingMemo, PendingRequestDetails, Resolution, SubmitAnswerResult } from '../workflows/messages.js';
export type { McpToolInfo } from '../workflows/mcp-list-tools.js';
