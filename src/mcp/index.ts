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
export { McpConnectError, McpSession, McpToolCallError, type ElicitationHandler, type McpToolInfo } from './connection.js';
export { PoolClosedError, ServerDisabledError, SessionPool, UnknownServerError, type Lease, type PoolOptions } from './pool.js';
export { toToolResult } from './result.js';
export { McpSource, UnknownToolError, type ServerStatus, type SourceCallOptions, type SourceTool, type WaitFor } from './source.js';
