export {
  DEFAULT_TIMEOUT_MS,
  envReferenceProblems,
  expandEnv,
  exposedToolName,
  loadMcpConfigFile,
  parseMcpConfig,
  sanitize,
  type HttpServerConfig,
  NotifyConfigSchema,
  type McpConfig,
  type NotifyConfig,
  type OAuthConfig,
  type ServerConfig,
  type StdioServerConfig,
} from './config.js';
export { McpSession, type CallOptions, type ConnectOptions, type RoundOutcome } from './session.js';
export { MAX_TOOL_PAGES, type McpToolInfo } from './tool-list.js';
export { URL_ELICITATION_REQUIRED, urlInputRequests, type ElicitationHandler, type UrlRequiredRound } from './legacy.js';
export { type InputRequiredRound, type RoundInput } from './modern.js';
export { TASKS_EXTENSION, type ModernTask } from './tasks-modern.js';
export { SessionPool, type Lease, type PoolOptions } from './pool.js';
export {
  isMcpSourceError,
  isRetryable,
  McpSourceError,
  McpSourceErrorCodes,
  type LoginChallenge,
  type McpSourceErrorCode,
  type McpSourceErrorFields,
} from './errors.js';
export { toToolResult } from './result.js';
export { McpSource, type ServerStatus, type SourceCallOptions, type SourceTool, type WaitFor } from './source.js';
export * from './auth/index.js';
