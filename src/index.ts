// durable-mcp: the root entry, for what needs no Temporal: the contract (Request/Answer shapes, the seed mappings, the
// failure types), MCP without Temporal (the config and `McpSource`), and the inbox. The other entries:
// `durable-mcp/worker` (a worker: `createWorker`, the plugin, the activities), `durable-mcp/workflows` (workflow code:
// no Node there), `durable-mcp/client` (a Temporal client: `DurableMcpClient`, its errors, the codec),
// `durable-mcp/testing` (tests). docs/architecture.md lists this entry's runtime names; test/package checks them.

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
export { validateElicitationContent, type ContentValidation, type ValidationIssue } from './contract/content.js';
export { MAX_ANSWER_BYTES } from './contract/answer.js';
export { FAILURES, FailureTypes, isFailureType, type FailureType } from './contract/failures.js';
export { DEFAULT_TASK_QUEUE } from './contract/message-names.js';
export type { ProtocolEra } from './contract/era.js';
export type { Duration } from './workflows/duration.js';

// MCP without Temporal: the config and `McpSource` (both eras, elicitation through your `waitFor`), and what they throw.
export { loadMcpConfigFile, parseMcpConfig, exposedToolName, type McpConfig, type NotifyConfig, type ServerConfig } from './mcp/config.js';
export { McpSource, type ServerStatus, type SourceTool, type WaitFor } from './mcp/source.js';
export { MAX_TOOL_PAGES, type McpToolInfo } from './mcp/tool-list.js';
export { isMcpSourceError, McpSourceError, McpSourceErrorCodes, type McpSourceErrorCode, type McpSourceErrorFields } from './mcp/errors.js';

// The inbox (a web page where a person answers), to serve inside your own process.
export {
  createInboxApp,
  startInbox,
  InboxError,
  InboxErrorCodes,
  isInboxError,
  INBOX_TOKEN_ENV,
  type InboxErrorCode,
  type InboxHandle,
  type InboxOptions,
} from './inbox/index.js';
