/**
 * What a scripted server's tools are (src/testing/scripted.ts) and what it records of what it received: the types its
 * MCP servers (scripted-servers.ts) share with it.
 */
import type { ElicitResult } from '../contract/index.js';

/** What a tool asks: the params of an MCP `elicitation/create` (form mode, or `mode: "url"`). */
export type AskParams =
  { mode?: 'form'; message: string; requestedSchema: Record<string, unknown> } | { mode: 'url'; message: string; url: string; elicitationId?: string };

export interface ToolContext {
  /** Ask the person (through the client's elicitation); resolves to the result the server receives. */
  ask(params: AskParams): Promise<ElicitResult>;
  /** The modern era's round (1 for the first `tools/call` of a call); always 1 in the legacy era. */
  round: number;
}

/** A tool's return value: text, a full MCP `CallToolResult` (`{ content, structuredContent?, isError? }`), or any other object (sent as structured content). */
export type ScriptedToolResult = string | { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean } | Record<string, unknown>;

export interface ScriptedTool {
  description?: string;
  /** JSON Schema of the arguments (default `{ type: "object" }`). */
  inputSchema?: Record<string, unknown>;
  /** The tool. A thrown error becomes the tool's error result (`isError: true`, its message as text), as MCP SDK servers do. */
  run(args: Record<string, unknown>, ctx: ToolContext): ScriptedToolResult | Promise<ScriptedToolResult>;
}

/** One `tools/call` the server received (a modern-era call has one per round). */
export interface RecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
  round: number;
  /** The call's result as sent, or `input_required` when the round asked for input. */
  outcome: { result: Record<string, unknown> } | { inputRequired: string[] };
}
/** One elicitation result the server received for an `ask`. */
export interface RecordedAnswer {
  tool: string;
  /** Which `ask` of the call (1 for its first). */
  ask: number;
  params: AskParams;
  result: ElicitResult;
}
