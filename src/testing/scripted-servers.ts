/**
 * The MCP server of a scripted server (src/testing/scripted.ts), in either era: its `tools/list` and a `tools/call`
 * that runs the scripted tool with its `ask`, recording every call and every elicitation result.
 *
 * - `legacy` (≤ 2025-11-25): `ask` sends `elicitation/create` on the live session (MCP SDK v1 server).
 * - `modern` (2026-07-28): `ask` ends the round with `input_required`; the tool runs again from the start in the next
 *   round, its earlier `ask`s answered from `requestState` (MCP SDK v2 server, stateless).
 */
import { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Server as ModernServer, inputRequired, type InputRequest } from '@modelcontextprotocol/server';
import type { ElicitResult } from '../contract/index.js';
import type { AskParams, RecordedAnswer, RecordedCall, ScriptedTool, ScriptedToolResult } from './scripted-types.js';

/** What the servers of one scripted server share: its tools, its name, and the records of what it received. */
export interface ScriptedTools {
  tools: Map<string, ScriptedTool>;
  info: { name: string; version: string };
  calls: RecordedCall[];
  answers: RecordedAnswer[];
}

const LEGACY_ELICIT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

function listTools(tools: Map<string, ScriptedTool>) {
  return {
    tools: [...tools].map(([name, t]) => ({
      name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema ?? { type: 'object' },
    })),
  };
}

function toCallToolResult(value: ScriptedToolResult): Record<string, unknown> {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value && typeof value === 'object' && Array.isArray((value as { content?: unknown }).content)) return value as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

function errorResult(err: unknown): Record<string, unknown> {
  return { content: [{ type: 'text', text: (err as Error)?.message ?? String(err) }], isError: true };
}

/** Signals, inside a modern-era tool body, that the round needs input: the tool stops here. */
class NeedsInput {
  constructor(
    readonly index: number,
    readonly params: AskParams,
  ) {}
}

interface ModernState {
  /** The answers of the call's earlier asks, in order. */
  answers: ElicitResult[];
  round: number;
}
const encodeState = (s: ModernState): string => Buffer.from(JSON.stringify(s), 'utf8').toString('base64url');
function decodeState(raw: unknown): ModernState {
  if (typeof raw !== 'string' || !raw) return { answers: [], round: 1 };
  const s = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ModernState;
  return { answers: Array.isArray(s.answers) ? s.answers : [], round: Number(s.round) || 1 };
}
const askKey = (index: number) => `ask${index}`;

function inputRequestFor(params: AskParams): InputRequest {
  if (params.mode === 'url') return inputRequired.elicitUrl({ message: params.message, url: params.url });
  return inputRequired.elicit({ message: params.message, requestedSchema: params.requestedSchema as never });
}

const unknownTool = (name: string) => errorResult(new Error(`unknown tool "${name}"`));

/** The legacy era's server: elicitation/create on the live session (SDK v1). */
export function legacyScriptedServer({ tools, info, calls, answers }: ScriptedTools): LegacyServer {
  const server = new LegacyServer(info, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => listTools(tools));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const tool = tools.get(name);
    let result: Record<string, unknown>;
    if (!tool) result = unknownTool(name);
    else {
      let asked = 0;
      const ask = async (params: AskParams): Promise<ElicitResult> => {
        const index = ++asked;
        const r = (await extra.sendRequest({ method: 'elicitation/create', params: params as never }, ElicitResultSchema, {
          timeout: LEGACY_ELICIT_TIMEOUT_MS,
        })) as ElicitResult;
        answers.push({ tool: name, ask: index, params, result: r });
        return r;
      };
      try {
        result = toCallToolResult(await tool.run(args, { ask, round: 1 }));
      } catch (err) {
        result = errorResult(err);
      }
    }
    calls.push({ tool: name, arguments: args, round: 1, outcome: { result } });
    return result as never;
  });
  return server;
}

/** The modern era's server: input_required rounds (SDK v2, stateless). */
export function modernScriptedServer({ tools, info, calls, answers }: ScriptedTools): ModernServer {
  const server = new ModernServer(info, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => listTools(tools) as never);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const tool = tools.get(name);
    if (!tool) {
      const result = unknownTool(name);
      calls.push({ tool: name, arguments: args, round: 1, outcome: { result } });
      return result as never;
    }
    const state = decodeState(ctx.mcpReq.requestState());
    const known = [...state.answers];
    const responses = ctx.mcpReq.inputResponses ?? {};
    // This round's answer, if the previous round asked.
    const next = responses[askKey(known.length + 1)] as ElicitResult | undefined;
    const arrived = next && typeof next === 'object' && 'action' in next ? known.push(next) : 0;
    const round = state.round;
    let used = 0;
    const ask = async (params: AskParams): Promise<ElicitResult> => {
      const index = ++used;
      if (index <= known.length) {
        const r = known[index - 1]!;
        // Recorded in the round it arrived (a retried round that re-sends it is recorded again: the server got it twice).
        if (index === arrived) answers.push({ tool: name, ask: index, params, result: r });
        return r;
      }
      throw new NeedsInput(index, params);
    };
    let result: Record<string, unknown>;
    try {
      result = toCallToolResult(await tool.run(args, { ask, round }));
    } catch (err) {
      if (err instanceof NeedsInput) {
        calls.push({ tool: name, arguments: args, round, outcome: { inputRequired: [askKey(err.index)] } });
        return inputRequired({
          inputRequests: { [askKey(err.index)]: inputRequestFor(err.params) },
          requestState: encodeState({ answers: known, round: round + 1 }),
        }) as never;
      }
      result = errorResult(err);
    }
    calls.push({ tool: name, arguments: args, round, outcome: { result } });
    return result as never;
  });
  return server;
}
