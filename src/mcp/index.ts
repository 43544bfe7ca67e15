export {
  DEFAULT_TIMEOUT_MS,
  McpConfigError,
  MissingEnvVarError,
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
  type ServerConfig,
  type StdioServerConfig,
} from './config.js';
export { McpConnectError, McpSession, McpToolCallError, URL_ELICITATION_REQUIRED, type ElicitationHandler, type McpToolInfo, type ProtocolEra, type RoundInput, type RoundOutcome } from './connection.js';
export { PoolClosedError, ServerDisabledError, SessionPool, UnknownServerError, type Lease, type PoolOptions } from './pool.js';
export { toToolResult } from './result.js';
export { McpSource, RoundLimitExceededError, UnknownToolError, UnsupportedInputRequestError, type ServerStatus, type SourceCallOptions, type SourceTool, type WaitFor } from './source.js';
