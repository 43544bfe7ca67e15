/**
 * One MCP session to one server: a client, its transport, the server's tools, and an elicitation
 * handler slot. Stdio spawns the server; HTTP tries streamable HTTP and falls back to SSE.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CancelledNotificationSchema, ElicitRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitParams, ElicitResult, ToolResult } from '../contract/index.js';
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
  /** The request's `_meta` (e.g. the W3C `traceparent` of the caller's span). */
  meta?: Record<string, unknown>;
}

export interface ConnectOptions {
  /** Advertise `elicitation: { form: {}, url: {} }` and route `elicitation/create` to the session's handler. */
  elicitation: boolean;
  /** Called with stderr lines of a stdio server. */
  onStderr?: (line: string) => void;
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
      await session.start(timeoutMs);
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
      await streamable.start(timeoutMs);
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
    const client = new Client(CLIENT_INFO, { capabilities: options.elicitation ? { elicitation: { form: {}, url: {} } } : {} });
    return client;
  }

  private async start(timeoutMs: number): Promise<void> {
    const name = this.server.name;
    if (this.elicitation) {
      this.client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
        const handler = this.elicitationHandler;
        // No tool call owns the session: nobody can answer, so the honest answer is cancel.
        if (!handler) return { action: 'cancel' };
        return (await handler(request.params as ElicitParams, extra.signal)) as any;
      });
      // The SDK's own handler ignores a server's `notifications/cancelled` for request id 0 (a falsy check),
      // and a session's first elicitation has id 0: abort the request's handler signal for every id.
      const controllers = (this.client as unknown as { _requestHandlerAbortControllers?: Map<RequestId, AbortController> })._requestHandlerAbortControllers;
      // (Only where that map exists: otherwise the SDK's handler stays, rather than none.)
      if (controllers) {
        this.client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
          const id = notification.params.requestId;
          if (id !== undefined) controllers.get(id)?.abort(notification.params.reason);
        });
      }
    }
    this.client.onclose = () => {
      this.closedFlag = true;
      this.onBroken?.();
    };
    try {
      await withTimeout(
        this.client.connect(this.transport, { timeout: timeoutMs }),
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
    try {
      this.tools = await withTimeout(this.listAllTools(timeoutMs), timeoutMs, () => new McpConnectError(`server "${name}": tools/list timed out after ${timeoutMs} ms`, name, 'list'));
    } catch (err) {
      await this.close();
      if (err instanceof McpConnectError) throw err;
      throw new McpConnectError(`server "${name}": tools/list failed: ${(err as Error).message}`, name, 'list');
    }
  }

  private async listAllTools(timeoutMs: number): Promise<McpToolInfo[]> {
    if (!this.client.getServerCapabilities()?.tools) return [];
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    const allow = this.server.tools;
    return allow ? tools.filter((t) => allow.includes(t.name)) : tools;
  }

  /** Call a tool by its original name. The timeout and abort signal are the caller's, never the SDK default. */
  async callTool(tool: string, args: Record<string, unknown> | undefined, options: CallOptions): Promise<ToolResult> {
    if (this.closedFlag) throw new McpToolCallError(`server "${this.server.name}": session is closed`, this.server.name, tool);
    // `client.request`, not `client.callTool`: the latter checks the result against the tool's outputSchema
    // *after* the tool ran and throws when it does not match. Retrying would run the tool again (its side
    // effects included), and failing would lose its result: the result is returned as the server sent it.
    // Node's timers fire at once for delays past 2^31-1 ms (about 24.8 days): longer is "no timeout" here.
    const timeoutMs = Math.min(options.timeoutMs, MAX_TIMER_MS);
    const raw = await this.client.request({ method: 'tools/call', params: { name: tool, arguments: args ?? {}, ...(options.meta ? { _meta: options.meta } : {}) } }, CallToolResultSchema, {
      timeout: timeoutMs,
      signal: options.signal,
      maxTotalTimeout: timeoutMs,
    });
    return toToolResult(raw as any);
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
