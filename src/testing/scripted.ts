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
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Server as ModernServer, createMcpHandler, inputRequired, type InputRequest } from '@modelcontextprotocol/server';
import { StdioServerTransport as ModernStdioTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ProtocolEra } from '../contract/era.js';
import type { ElicitResult } from '../contract/index.js';

export type ScriptedTransport = 'stdio' | 'http';

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

export interface ScriptedServerOptions {
  /** Default `modern`. */
  era?: ProtocolEra;
  /** Default `stdio`. */
  transport?: ScriptedTransport;
  tools: Record<string, ScriptedTool | ScriptedTool['run']>;
  /** Server name reported to clients (default `scripted`). */
  name?: string;
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

/** The stdio-socket bridge the worker runs as the stdio server's command: it pipes its stdin/stdout to the kit's socket. */
export const stdioSocketBridgePath: string = fileURLToPath(new URL('./stdio-socket-bridge.js', import.meta.url));

const LEGACY_ELICIT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

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

export async function scriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const era: ProtocolEra = options.era ?? 'modern';
  const transport: ScriptedTransport = options.transport ?? 'stdio';
  if (era !== 'legacy' && era !== 'modern') throw new TypeError(`scriptedServer: "era" must be "legacy" or "modern", got ${JSON.stringify(era)}`);
  if (transport !== 'stdio' && transport !== 'http')
    throw new TypeError(`scriptedServer: "transport" must be "stdio" or "http", got ${JSON.stringify(transport)}`);
  const tools = toolsOf(options);
  const info = { name: options.name ?? 'scripted', version: '1.0.0' };
  const calls: RecordedCall[] = [];
  const answers: RecordedAnswer[] = [];

  const unknownTool = (name: string) => errorResult(new Error(`unknown tool "${name}"`));

  // ---- legacy era: elicitation/create on the live session (SDK v1) ----
  const legacyServer = (): LegacyServer => {
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
  };

  // ---- modern era: input_required rounds (SDK v2, stateless) ----
  const modernServer = (): ModernServer => {
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
  };

  const closers: Array<() => Promise<void>> = [];
  let config: Record<string, unknown>;

  if (transport === 'stdio') {
    const sockets = new Set<Socket>();
    const listener: NetServer = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      // The stdio transports do not watch their stream's end: when the worker closes the session (the bridge
      // exits), the server is closed here, so a request it still waits on (an elicitation of a released call)
      // is dropped with its timer instead of keeping this process alive.
      let closeServer: () => Promise<unknown> = async () => undefined;
      socket.once('close', () => {
        sockets.delete(socket);
        void closeServer().catch(() => undefined);
      });
      if (era === 'legacy') {
        const server = legacyServer();
        closeServer = () => server.close();
        void server.connect(new LegacyStdioTransport(socket, socket));
      } else {
        const served = serveStdio(() => modernServer(), { transport: new ModernStdioTransport(socket, socket), legacy: 'reject' });
        closeServer = async () => (await served).close();
      }
    });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = listener.address() as AddressInfo;
    config = { command: [process.execPath, stdioSocketBridgePath, String(port)] };
    closers.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    });
  } else {
    let handle: (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void>;
    if (era === 'legacy') {
      // Stateful streamable HTTP: the elicitation travels on the session's stream.
      const sessions = new Map<string, { transport: LegacyHttpTransport; server: LegacyServer }>();
      handle = async (req, res, body) => {
        const sid = req.headers['mcp-session-id'] as string | undefined;
        let entry = sid ? sessions.get(sid) : undefined;
        if (!entry) {
          if (sid) {
            res.writeHead(404).end();
            return;
          }
          const server = legacyServer();
          const t: LegacyHttpTransport = new LegacyHttpTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              sessions.set(id, { transport: t, server });
            },
          });
          t.onclose = () => {
            if (t.sessionId) sessions.delete(t.sessionId);
          };
          await server.connect(t);
          entry = { transport: t, server };
        }
        await entry.transport.handleRequest(req, res, body);
      };
      closers.push(async () => {
        for (const { server } of sessions.values()) await server.close().catch(() => undefined);
      });
    } else {
      const mcp = createMcpHandler(() => modernServer(), { legacy: 'reject' });
      handle = async (req, res, body) => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
          method: req.method,
          headers,
          ...(req.method === 'POST' ? { body: JSON.stringify(body) } : {}),
        });
        const response = await mcp.fetch(request, { parsedBody: body });
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) return void res.end();
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      };
      closers.push(() => mcp.close());
    }
    const http: HttpServer = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: unknown;
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        } catch {
          res.writeHead(400).end();
          return;
        }
        handle(req, res, body).catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500);
          res.end(String((err as Error)?.message ?? err));
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = http.address() as AddressInfo;
    config = { url: `http://127.0.0.1:${port}/mcp` };
    closers.push(async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });
  }

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
