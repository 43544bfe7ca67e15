// durable-mcp/client: the one path from a Temporal client to durable-mcp (connection, DurableMcpClient, listing, errors).
export { connectClient } from './connection.js';
export {
  CodecError,
  CodecErrorCodes,
  isCodecError,
  type CodecErrorCode,
  dataConverterOf,
  EncryptionCodec,
  encryptionKeysFromEnv,
  generateEncryptionKey,
  parseEncryptionKeys,
  ENCRYPTED_ENCODING,
  ENCRYPTION_KEYS_ENV,
  ENCRYPTION_KEYS_FILE_ENV,
  KEY_ID_METADATA,
  type EncryptionKey,
} from '../codec/index.js';
export { DurableMcpClientPlugin, type DurableMcpClientPluginOptions } from '../codec/plugin.js';
export { DurableMcpClient, type StartToolCallOptions } from './client.js';
export { FIRST_ATTEMPT_WAIT_MS, type FirstAttempt } from './first-attempt.js';
export { type ListToolsOptions, type LoginWait } from './login-watch.js';
/** @deprecated renamed LoginWait (a listing's wait for a sign-in). */
export type { LoginWait as PendingLogin } from './login-watch.js';
export { ListOptionError, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type ListFilter, type ListOptions } from './list-options.js';
export { type AwaitingWorkflow, type ListPage, type ListedRequest, type UnlistedWorkflow } from './listing.js';
export { type ResolvedRow } from './resolved.js';
export {
  AnswerRejectedFailure,
  ClientError,
  ClientErrorCodes,
  isAnswerRejectedFailure,
  isClientError,
  isToolCallFailure,
  ToolCallFailure,
  type CallFailureType,
  type ClientErrorCode,
  type ClientErrorFields,
  type FailedCall,
} from './errors.js';
export { DEFAULT_TASK_QUEUE } from '../contract/message-names.js';
export { FailureTypes, type FailureType } from '../contract/failures.js';
export type { AnswerBy, CallProgress, PendingRequest, SubmitAnswerResult } from '../workflows/messages.js';
export type { ListingMemo, Resolution } from '../workflows/visibility.js';
export type { McpToolInfo } from '../workflows/mcp-list-tools.js';
