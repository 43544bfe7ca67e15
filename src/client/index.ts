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
} from './codec.js';
export { DurableMcpClient, SIGNAL_HINT, type StartToolCallOptions } from './client.js';
export { FIRST_ATTEMPT_WAIT_MS, type FirstAttempt } from './first-attempt.js';
export { type ListToolsOptions, type SignInPending } from './sign-in.js';
export { ListOptionError, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type ListFilter, type ListOptions } from './list-options.js';
export { type AwaitingWorkflow, type ListPage, type ListedRequest, type UnlistedWorkflow } from './listing.js';
export { type ResolvedRow } from './resolved.js';
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
export type { AnswerBy, CallProgress, PendingRequestDetails, SubmitAnswerResult } from '../workflows/messages.js';
export type { ListingMemo, Resolution } from '../workflows/visibility.js';
export type { McpToolInfo } from '../workflows/mcp-list-tools.js';
