// durable-mcp/testing: test your own workflows that call MCP tools and ask people, offline and time-skipped.
export { createTestEnvironment, type DurableMcpTestEnvironment, type TestEnvironmentOptions } from './environment.js';
export {
  scriptedServer,
  stdioSocketBridgePath,
  type AskParams,
  type RecordedAnswer,
  type RecordedCall,
  type ScriptedServer,
  type ScriptedServerOptions,
  type ScriptedTool,
  type ScriptedToolResult,
  type ScriptedTransport,
  type ToolContext,
} from './scripted.js';
export type { ProtocolEra } from '../contract/era.js';
export type { PendingContext, PendingRequest } from '../workflows/messages.js';
export { accept, answerWith, cancel, decline, nextPending, type AnswerFor, type Answerer } from './answering.js';
export { replayHistories, saveHistory, ReplayFailedError, type HistorySource, type ReplayOutcome } from './replay.js';
