/**
 * Scripted MCP servers for tests: a tool is an async function of its arguments and an `ask(params)` that
 * elicits and resolves to the person's result. The kit serves the tools to the worker over real stdio
 * (the worker spawns a small stdio-socket bridge process whose stdin/stdout are piped to a socket of this process, so
 * the tools stay closures of the test) or over real streamable HTTP, in either MCP era:
 *
 * - `legacy` (≤ 2025-11-25): `ask` sends `elicitation/create` on the live session (MCP SDK v1 server).
 * - `modern` (2026-07-28): `ask` ends the round with `input_required`; the client retries with the answers
 *   and the tool runs again from the start, its earlier `ask`s answered from `requestState` (MCP SDK v2
 *   server, stateless). So a modern-era tool body runs once per round: keep side effects after the asks.
 *
 * Every `tools/call` the server received and every elicitation result it got back is recorded, for assertions.
 */
import type { ProtocolEra } from '../contract/era.js';
import { legacyScriptedServer, modernScriptedServer, type ScriptedTools } from './scripted-servers.js';
import { serveOverHttp, serveOverStdio } from './scripted-transports.js';
import type { RecordedAnswer, RecordedCall, ScriptedTool } from './scripted-types.js';

export { stdioSocketBridgePath } from './scripted-transports.js';
export type { AskParams, RecordedAnswer, RecordedCall, ScriptedTool, ScriptedToolResult, ToolContext } from './scripted-types.js';

export type ScriptedTransport = 'stdio' | 'http';

export interface ScriptedServerOptions {
  /** Default `modern`. */
  era?: ProtocolEra;
  /** Default `stdio`. */
  transport?: ScriptedTransport;
  tools: Record<string, ScriptedTool | ScriptedTool['run']>;
  /** Server name reported to clients (default `scripted`). */
  name?: string;
}

export interface ScriptedServer {
  readonly era: ProtocolEra;
  readonly transport: ScriptedTransport;
  /** The entry to put under `mcpServers` in the worker's MCP config. */
  readonly config: Record<string, unknown>;
  /** Every `tools/call` received, in order. */
  readonly calls: RecordedCall[];
  /** Every elicitation result received, in order. */
  readonly answers: RecordedAnswer[];
  /** Stop serving (open connections are closed). */
  close(): Promise<void>;
}

function toolsOf(options: ScriptedServerOptions): Map<string, ScriptedTool> {
  const tools = new Map<string, ScriptedTool>();
  for (const [name, t] of Object.entries(options.tools ?? {})) {
    if (typeof t === 'function') tools.set(name, { run: t });
    else if (t && typeof t.run === 'function') tools.set(name, t);
    else throw new TypeError(`scriptedServer: tool "${name}" must be a function or an object with a run function`);
  }
  if (tools.size === 0) throw new TypeError('scriptedServer: "tools" must name at least one tool');
  return tools;
}

/** An MCP server made of scripted tools (`ask`, `answer`), served over HTTP in this process for your tests (docs/testing.md). */
export async function scriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const era: ProtocolEra = options.era ?? 'modern';
  const transport: ScriptedTransport = options.transport ?? 'stdio';
  if (era !== 'legacy' && era !== 'modern') throw new TypeError(`scriptedServer: "era" must be "legacy" or "modern", got ${JSON.stringify(era)}`);
  if (transport !== 'stdio' && transport !== 'http')
    throw new TypeError(`scriptedServer: "transport" must be "stdio" or "http", got ${JSON.stringify(transport)}`);
  const shared: ScriptedTools = { tools: toolsOf(options), info: { name: options.name ?? 'scripted', version: '1.0.0' }, calls: [], answers: [] };
  const { calls, answers } = shared;
  const servers = { era, legacy: () => legacyScriptedServer(shared), modern: () => modernScriptedServer(shared) };
  const { config, closers } = transport === 'stdio' ? await serveOverStdio(servers) : await serveOverHttp(servers);

  let closed: Promise<void> | undefined;
  return {
    era,
    transport,
    config,
    calls,
    answers,
    close() {
      closed ??= (async () => {
        for (const c of closers.reverse()) await c();
      })();
      return closed;
    },
  };
}
