/**
 * One MCP session to one server: a client, its transport, the server's tools, and an elicitation
 * handler slot. Stdio spawns the server; HTTP tries streamable HTTP and falls back to SSE.
 *
 * The client is the MCP SDK v2 (`@modelcontextprotocol/client`), which negotiates the era per server:
 * `server/discover` (2026-07-28, the modern era: stateless, elicitation as multi round-trip results)
 * and, failing that, `initialize` (the legacy era: `elicitation/create` on the live session).
 * Auto-fulfilment of `input_required` is off: a round's input requests go back to the caller (the
 * workflow), which asks the human durably and sends the next round.
 */
import { Client, ProtocolError, SSEClientTransport, StreamableHTTPClientTransport, type JSONRPCMessage, type PriorDiscovery, type RequestId, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { admitElicitation, INVALID_PARAMS, type ElicitParams, type ElicitResult, type ToolResult } from '../contract/index.js';
import { MAX_TIMER_MS, expandEnv, type ServerConfig } from './config.js';
import { toToolResult } from './result.js';

export const CLIENT_INFO = { name: 'durable-mcp', version: '0.1.0' };

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** Handles one `elicitation/create`. `signal` aborts when the server gives up (notifications/cancelled). */
export type ElicitationHandler = (params: ElicitParams, signal: AbortSignal) => Promise<ElicitResult>;

export class McpConnectError extends Error {
  override name = 'McpConnectError';
  constructor(
    message: string,
    readonly server: string,
    readonly phase: 'connect' | 'initialize' | 'list',
    /** Trying again cannot help (the command does not exist or is not executable): fix the config. */
    readonly permanent = false,
  ) {
    super(message);
  }
}

/** Spawn errors that a retry cannot fix. */
const PERMANENT_SPAWN_ERRORS = new Set(['ENOENT', 'EACCES', 'ENOTDIR', 'EISDIR', 'ENOEXEC']);

export class McpToolCallError extends Error {
  override name = 'McpToolCallError';
  constructor(
    message: string,
    readonly server: string,
    readonly tool: string,
  ) {
    super(message);
  }
}

export interface CallOptions {
  /** Timeout of the `tools/call` request in ms. Never the SDK's 60 s default. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with each `notifications/progress` of the call (the request then carries a `progressToken`). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The request's `_meta` (e.g. the W3C `traceparent` of the caller's span). */
  meta?: Record<string, unknown>;
}

/** A round of a modern-era (MRTR) call: the answers to the previous round's requests and its state, echoed. */
export interface RoundInput {
  inputResponses?: Record<string, unknown>;
  /** Opaque; echoed byte for byte, never parsed or logged. */
  requestState?: string;
}

/** The outcome of one `tools/call` round trip. */
export type RoundOutcome =
  | { kind: 'complete'; result: ToolResult }
  /** MCP 2026-07-28 `input_required`: the raw input requests (key → `{ method, params }`) and the opaque state. */
  | { kind: 'input_required'; inputRequests: Record<string, unknown>; requestState?: string }
  /** MCP 2025-11-25 `-32042` URLElicitationRequiredError: URL elicitations to complete before the call is retried. */
  | { kind: 'url_required'; elicitations: unknown[]; message: string };

/** The JSON-RPC error code of URLElicitationRequiredError (MCP 2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

export type ProtocolEra = 'legacy' | 'modern';

export interface ConnectOptions {
  /** Advertise `elicitation: { form: {}, url: {} }` and route `elicitation/create` to the session's handler. */
  elicitation: boolean;
  /** Called with stderr lines of a stdio server. */
  onStderr?: (line: string) => void;
  /**
   * The era an earlier session of this server negotiated (`session.verdict`): the connect skips the
   * `server/discover` probe (on stdio, a second process spawned just for it).
   */
  prior?: PriorDiscovery;
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class McpSession {
  /** The handler for `elicitation/create`; set by whoever leases the session. */
  elicitationHandler: ElicitationHandler | undefined;
  tools: McpToolInfo[] = [];
  private closedFlag = false;
  private closing: Promise<void> | undefined;
  private readonly stderrTail: string[] = [];
  /** Admitted `elicitation/create` params, as the server sent them, by JSON-RPC id (taken by the handler). */
  private readonly admitted = new Map<RequestId, ElicitParams>();
  /** Fires once when the transport closes or errors (the session is then broken). */
  onBroken: (() => void) | undefined;
  readonly transportKind: 'stdio' | 'streamable-http' | 'sse';

  private constructor(
    readonly server: ServerConfig,
    readonly client: Client,
    private transport: Transport,
    kind: 'stdio' | 'streamable-http' | 'sse',
    private readonly elicitation: boolean,
  ) {
    this.transportKind = kind;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Process id of a stdio server, for diagnostics. */
  get pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  get stderr(): string {
    return this.stderrTail.join('\n');
  }

  static async connect(server: ServerConfig, options: ConnectOptions): Promise<McpSession> {
    const timeoutMs = server.timeoutMs;
    if (server.transport === 'stdio') {
      const env = server.env ? Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, expandEnv(v, { server: server.name, field: `env.${k}` })])) : undefined;
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        env: { ...getDefaultEnvironment(), ...env },
        cwd: server.cwd,
        stderr: 'pipe',
      });
      const session = new McpSession(server, McpSession.newClient(options), transport, 'stdio', options.elicitation);
      transport.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (!line) continue;
          session.stderrTail.push(line);
          if (session.stderrTail.length > 20) session.stderrTail.shift();
          options.onStderr?.(line);
        }
      });
      await session.start(timeoutMs, options.prior);
      return session;
    }
    const headers = server.headers
      ? Object.fromEntries(Object.entries(server.headers).map(([k, v]) => [k, expandEnv(v, { server: server.name, field: `headers.${k}` })]))
      : undefined;
    const url = new URL(server.url);
    const streamable = new McpSession(
      server,
      McpSession.newClient(options),
      new StreamableHTTPClientTransport(url, { requestInit: headers ? { headers } : undefined }),
      'streamable-http',
      options.elicitation,
    );
    try {
      await streamable.start(timeoutMs, options.prior);
      return streamable;
    } catch (err) {
      await streamable.close();
      if (err instanceof McpConnectError && err.message.includes('timed out')) throw err;
      // Fall back to the legacy HTTP+SSE transport.
      const sse = new McpSession(
        server,
        McpSession.newClient(options),
        new SSEClientTransport(url, { requestInit: headers ? { headers } : undefined, eventSourceInit: headers ? { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } : undefined }),
        'sse',
        options.elicitation,
      );
      try {
        await sse.start(timeoutMs);
        return sse;
      } catch (sseErr) {
        await sse.close();
        throw new McpConnectError(
          `server "${server.name}": cannot connect to ${url.origin}${url.pathname} over streamable HTTP (${(err as Error).message}) nor SSE (${(sseErr as Error).message})`,
          server.name,
          'connect',
        );
      }
    }
  }

  private static newClient(options: ConnectOptions): Client {
    return new Client(CLIENT_INFO, {
      capabilities: options.elicitation ? { elicitation: { form: {}, url: {} } } : {},
      versionNegotiation: { mode: 'auto' },
      // A round's input requests go back to the caller (the workflow asks the human durably).
      inputRequired: { autoFulfill: false },
    });
  }

  /** The era this session negotiated: `modern` (2026-07-28, MRTR) or `legacy` (≤ 2025-11-25). */
  get era(): ProtocolEra {
    return this.client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  }

  /** The era this session negotiated, to hand to the next connect to the same server (`ConnectOptions.prior`). */
  get verdict(): PriorDiscovery {
    const discover = this.client.getDiscoverResult();
    return this.era === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  }

  private async start(timeoutMs: number, prior?: PriorDiscovery): Promise<void> {
    const name = this.server.name;
    if (this.elicitation) {
      // Legacy era: the server sends `elicitation/create` on the session. The params the handler gets are the
      // ones the arrival check admitted, as the server sent them (see admitElicitations).
      this.client.setRequestHandler('elicitation/create', async (request, ctx) => {
        const admitted = this.admitted.get(ctx.mcpReq.id);
        this.admitted.delete(ctx.mcpReq.id);
        const handler = this.elicitationHandler;
        // No tool call owns the session: nobody can answer, so the honest answer is cancel.
        if (!handler) return { action: 'cancel' };
        if (!admitted) throw new ProtocolError(INVALID_PARAMS, 'elicitation refused: its params were not seen by the arrival check');
        return (await handler(admitted, ctx.mcpReq.signal)) as any;
      });
      // A server's `notifications/cancelled` for request id 0 (a session's first elicitation) was ignored by
      // the v1 SDK (a falsy check; this session carried a fix for it). SDK v2 checks `=== undefined` and aborts
      // the handler's signal for every id, id 0 included: a test holds it to that.
    }
    this.client.onclose = () => {
      this.closedFlag = true;
      this.onBroken?.();
    };
    try {
      await withTimeout(
        this.client.connect(this.transport, { timeout: timeoutMs, ...(prior ? { prior } : {}) }),
        timeoutMs,
        () => new McpConnectError(`server "${name}": connect and initialize timed out after ${timeoutMs} ms`, name, 'initialize'),
      );
    } catch (err) {
      await this.close();
      if (err instanceof McpConnectError) throw err;
      const stderr = this.stderr ? ` (stderr: ${this.stderr.slice(-500)})` : '';
      const code = (err as NodeJS.ErrnoException)?.code;
      if (this.server.transport === 'stdio' && code && PERMANENT_SPAWN_ERRORS.has(code)) {
        const what = code === 'ENOENT' ? 'not found' : 'not executable';
        throw new McpConnectError(`server "${name}": cannot start command ${JSON.stringify(this.server.command)} (${what}: ${code}); check its "command" and "cwd"`, name, 'connect', true);
      }
      throw new McpConnectError(`server "${name}": failed to connect: ${(err as Error).message}${stderr}`, name, 'connect');
    }
    if (this.elicitation) this.admitElicitations();
    try {
      this.tools = await withTimeout(this.listAllTools(timeoutMs), timeoutMs, () => new McpConnectError(`server "${name}": tools/list timed out after ${timeoutMs} ms`, name, 'list'));
    } catch (err) {
      await this.close();
      if (err instanceof McpConnectError) throw err;
      throw new McpConnectError(`server "${name}": tools/list failed: ${(err as Error).message}`, name, 'list');
    }
  }

  /**
   * Issue #16: the arrival rules (contract/admit.ts) see each `elicitation/create` exactly as the server
   * sent it, and refuse what must not reach a person (too large, a schema durable-mcp cannot validate as
   * the server does or that no answer satisfies, an unsafe URL) with JSON-RPC -32602 and a one-line reason.
   *
   * Why at the transport: the SDK's `Protocol` checks a request against its schemas before any handler
   * sees it (v1 handed the handler the parsed copy, without the keywords it does not know: `pattern`,
   * `$ref`, `additionalProperties`, …; a schema it rejects got a -32603 dump of issues). So, once
   * `connect()` has set the Protocol's `transport.onmessage` (no server request can come before
   * initialization), it is wrapped: an `elicitation/create` is admitted here, its raw params kept for the
   * handler by JSON-RPC id, or it is answered with the refusal and never dispatched. Every other message
   * passes untouched. In the modern era the input requests of an `input_required` result go through
   * `admitElicitation` in the activity (and McpSource) before they become Requests.
   */
  private admitElicitations(): void {
    const transport = this.transport;
    const dispatch = transport.onmessage;
    if (!dispatch) return;
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      if ('method' in message && message.method === 'elicitation/create' && 'id' in message) {
        let admission: ReturnType<typeof admitElicitation>;
        try {
          admission = admitElicitation(message.params);
        } catch (err) {
          // The rules never throw on any JSON; should they, the request is refused, never dispatched unchecked.
          admission = { ok: false, code: INVALID_PARAMS, message: `elicitation refused: it could not be checked (${(err as Error)?.message})` };
        }
        if (!admission.ok) {
          void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: INVALID_PARAMS, message: admission.message } }).catch(() => undefined);
          return;
        }
        this.admitted.set(message.id, admission.params);
        // Taken by the handler; one the SDK refused on its own never is: keep only a few.
        if (this.admitted.size > 64) this.admitted.delete(this.admitted.keys().next().value as RequestId);
      }
      (dispatch as (m: JSONRPCMessage, e?: unknown) => void)(message, extra);
    };
  }

  private async listAllTools(timeoutMs: number): Promise<McpToolInfo[]> {
    if (!this.client.getServerCapabilities()?.tools) return [];
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      tools.push(...(page.tools as unknown as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    const allow = this.server.tools;
    return allow ? tools.filter((t) => allow.includes(t.name)) : tools;
  }

  /** Call a tool by its original name. The timeout and abort signal are the caller's, never the SDK default. */
  async callTool(tool: string, args: Record<string, unknown> | undefined, options: CallOptions): Promise<ToolResult> {
    const outcome = await this.callToolRound(tool, args, {}, options);
    if (outcome.kind === 'complete') return outcome.result;
    if (outcome.kind === 'url_required') throw new McpToolCallError(`server "${this.server.name}": tool "${tool}" requires URL elicitation: ${outcome.message}`, this.server.name, tool);
    throw new McpToolCallError(`server "${this.server.name}": tool "${tool}" requires input (input_required); call it through callToolRound`, this.server.name, tool);
  }

  /**
   * One round trip of `tools/call`: a complete result, or (modern era) the round's input requests and
   * state, or (legacy era) the URL elicitations of a `-32042` error. `round` carries the previous round's
   * answers and its `requestState`, echoed as given.
   */
  async callToolRound(tool: string, args: Record<string, unknown> | undefined, round: RoundInput, options: CallOptions): Promise<RoundOutcome> {
    if (this.closedFlag) throw new McpToolCallError(`server "${this.server.name}": session is closed`, this.server.name, tool);
    // `client.request`, not `client.callTool`: the latter checks the result against the tool's outputSchema
    // *after* the tool ran and throws when it does not match. Retrying would run the tool again (its side
    // effects included), and failing would lose its result: the result is returned as the server sent it.
    // Node's timers fire at once for delays past 2^31-1 ms (about 24.8 days): longer is "no timeout" here.
    const timeoutMs = Math.min(options.timeoutMs, MAX_TIMER_MS);
    const params: Record<string, unknown> = { name: tool, arguments: args ?? {} };
    if (round.inputResponses !== undefined) params.inputResponses = round.inputResponses;
    if (round.requestState !== undefined) params.requestState = round.requestState;
    // The caller's trace context (W3C `traceparent`): the SDK merges it with the era's own `_meta` envelope
    // (protocol version, capabilities) and the progress token; it is sent on every round of the call.
    if (options.meta) params._meta = { ...options.meta };
    let raw: unknown;
    try {
      raw = await this.client.request(
        { method: 'tools/call', params },
        { timeout: timeoutMs, signal: options.signal, maxTotalTimeout: timeoutMs, allowInputRequired: true, ...(options.onProgress ? { onprogress: options.onProgress } : {}) },
      );
    } catch (err) {
      if (err instanceof ProtocolError && err.code === URL_ELICITATION_REQUIRED) {
        const data = err.data as { elicitations?: unknown } | undefined;
        return { kind: 'url_required', elicitations: Array.isArray(data?.elicitations) ? data.elicitations : [], message: err.message };
      }
      throw err;
    }
    const r = raw as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown };
    if (r && r.resultType === 'input_required') {
      const inputRequests = r.inputRequests && typeof r.inputRequests === 'object' && !Array.isArray(r.inputRequests) ? (r.inputRequests as Record<string, unknown>) : {};
      return { kind: 'input_required', inputRequests, ...(typeof r.requestState === 'string' ? { requestState: r.requestState } : {}) };
    }
    return { kind: 'complete', result: toToolResult(raw as any) };
  }

  /** Close the session; a stdio server process is ended (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void> {
    if (!this.closing) {
      this.closedFlag = true;
      this.closing = (async () => {
        try {
          if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId) {
            await withTimeout(this.transport.terminateSession(), 2000, () => new Error('terminate timed out')).catch(() => undefined);
          }
        } finally {
          await this.client.close().catch(() => undefined);
          await this.transport.close().catch(() => undefined);
        }
      })();
    }
    return this.closing;
  }
}
