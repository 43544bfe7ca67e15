/**
 * The neutral core of an MCP session, shared by both eras: connect (a transport of ./transports.ts, then
 * `server/discover` or `initialize`, whichever the server speaks), list the server's tools, call a tool one
 * round trip at a time, close. What is particular to an era lives in its module: ./legacy.ts
 * (`elicitation/create` on the live session, the `-32042` form) and ./modern.ts (`input_required` rounds,
 * `requestState`, the discovery verdict).
 *
 * The client is the MCP SDK v2 (`@modelcontextprotocol/client`), which negotiates the era per server:
 * `server/discover` (2026-07-28, the modern era: stateless, elicitation as multi round-trip results)
 * and, failing that, `initialize` (the legacy era: `elicitation/create` on the live session).
 */
import { Client, type AuthProvider, type PriorDiscovery, type Transport } from '@modelcontextprotocol/client';
import type { ProtocolEra } from '../contract/era.js';
import type { ToolResult } from '../contract/index.js';
import { isLoginRequired, loginRequiredOf } from './auth/credentials.js';
import { MAX_TIMER_MS, type ServerConfig } from './config.js';
import { bridgeElicitations, readUrlElicitationRequired, type ElicitationHandler, type UrlRequiredRound } from './legacy.js';
import { isMcpSourceError, McpSourceError, McpSourceErrorCodes } from './errors.js';
import {
  assumeCompleteWhenUnspecified,
  discoveryVerdict,
  backChannelRefusal,
  MODERN_REQUEST_OPTIONS,
  protocolViolation,
  refusalByBehaviour,
  refusedResult,
  readRound,
  withRound,
  type InputRequiredRound,
  type RoundInput,
} from './modern.js';
import { uniqueJsonRpcIds } from './jsonrpc-ids.js';
import { withTimeout } from './timeout.js';
import { paramHeaders, scanParamHeaders, type ParamHeader } from './param-headers.js';
import { newMcpClient } from './new-client.js';
import { toToolResult, watchBareResults } from './result.js';
import { callAsLegacyTask, requiresTask, serverRunsToolTasks } from './tasks-legacy.js';
import { acceptTaskResults, missingCapability, readModernTask, TaskRpc, type ModernTask } from './tasks-modern.js';
import { isWrongListing, listAllTools, type McpToolInfo } from './tool-list.js';
import { httpHeaders, sseTransport, stdioTransport, streamableHttpTransport, terminateHttpSession, transportPid, type TransportKind } from './transports.js';

export { CLIENT_INFO } from './new-client.js';

export type { McpToolInfo } from './tool-list.js';

/** The server could not be started or reached, or its tools not listed: the MCP plane's error (McpServerUnavailable). */
function connectError(message: string, server: string, phase: 'connect' | 'initialize' | 'list', permanent = false): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.McpServerUnavailable, message, { server, phase, permanent });
}

/** Spawn errors that a retry cannot fix. */
const PERMANENT_SPAWN_ERRORS = new Set(['ENOENT', 'EACCES', 'ENOTDIR', 'EISDIR', 'ENOEXEC']);

/** The `tools/call` cannot go on: the MCP plane's error (ToolCallFailed). */
export function toolCallError(message: string, server: string, tool: string): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.ToolCallFailed, message, { server, tool });
}

export interface CallOptions {
  /** Timeout of the `tools/call` request in ms. Never the SDK's 60 s default. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with each `notifications/progress` of the call (the request then carries a `progressToken`). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The request's `_meta` (e.g. the W3C `traceparent` of the caller's span). */
  meta?: Record<string, unknown>;
  /** Legacy era: who answers what the server asks while this call runs, and no other call (else the connect's; else cancel). */
  onElicit?: ElicitationHandler;
}

/** The outcome of one `tools/call` round trip: complete, or the input one era or the other asks for. */
export type RoundOutcome = { kind: 'complete'; result: ToolResult } | InputRequiredRound | UrlRequiredRound | { kind: 'task'; task: ModernTask };

export interface ConnectOptions {
  /** Advertise `elicitation: { form: {}, url: {} }` and route `elicitation/create` to the running call's `onElicit`. */
  elicitation: boolean;
  /** Who answers an `elicitation/create` during a call that brings no `onElicit` (McpSource: its `waitFor`). */
  onElicit?: ElicitationHandler;
  /** Called with stderr lines of a stdio server. */
  onStderr?: (line: string) => void;
  /**
   * The era an earlier session of this server negotiated (`session.verdict`): the connect skips the
   * `server/discover` probe (on stdio, a second process spawned just for it).
   */
  prior?: PriorDiscovery;
  /** A server behind OAuth: the bearer token its transports send, and a 401 ending the call (src/mcp/auth). */
  authProvider?: AuthProvider;
}

export class McpSession {
  /** The `onElicit` of the call running now (a pooled session runs one call at a time), else the connect's. */
  private asking: ElicitationHandler | undefined;
  /** The server's tools (its `tools` allowlist applied), as it listed them at connect or at the last `listTools()`. */
  tools: McpToolInfo[] = [];
  /** When `tools` was listed (`performance.now()`). */
  toolsListedAt = -Infinity;
  /**
   * Modern era: the tools left out of `tools` because their `x-mcp-header` declarations are invalid (SEP-2243: the
   * client MUST NOT call them), with the reason; and the declarations of the others (their `Mcp-Param-*` headers).
   */
  readonly invalidTools = new Map<string, string>();
  private readonly paramHeaderDeclarations = new Map<string, ParamHeader[]>();
  private closedFlag = false;
  private closing: Promise<void> | undefined;
  /** Fires once when the transport closes or errors (the session is then broken). */
  onBroken: (() => void) | undefined;
  readonly transportKind: TransportKind;
  /** Modern era, tasks extension: the `resultType: "task"` results the transport took out of the SDK's way. */
  private taskResults: { take(): unknown } | undefined;
  private bareResults: { take(): boolean } | undefined;

  private constructor(
    readonly server: ServerConfig,
    readonly client: Client,
    private transport: Transport,
    kind: TransportKind,
    private readonly asks: Pick<ConnectOptions, 'elicitation' | 'onElicit'>,
    /** The last lines of a stdio server's stderr. */
    private readonly stderrTail: string[] = [],
  ) {
    this.transportKind = kind;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Process id of a stdio server, for diagnostics. */
  get pid(): number | undefined {
    return transportPid(this.transport);
  }

  get stderr(): string {
    return this.stderrTail.join('\n');
  }

  static async connect(server: ServerConfig, options: ConnectOptions): Promise<McpSession> {
    const timeoutMs = server.timeoutMs;
    if (server.transport === 'stdio') {
      const stderrTail: string[] = [];
      const transport = stdioTransport(server, (line) => {
        stderrTail.push(line);
        if (stderrTail.length > 20) stderrTail.shift();
        options.onStderr?.(line);
      });
      const session = new McpSession(server, newMcpClient(server, options.elicitation), transport, 'stdio', options, stderrTail);
      await session.start(timeoutMs, options.prior);
      return session;
    }
    const headers = httpHeaders(server);
    const url = new URL(server.url);
    const auth = options.authProvider;
    const streamable = new McpSession(
      server,
      newMcpClient(server, options.elicitation),
      streamableHttpTransport(url, headers, auth),
      'streamable-http',
      options,
    );
    try {
      await streamable.start(timeoutMs, options.prior);
      return streamable;
    } catch (err) {
      await streamable.close();
      if (isMcpSourceError(err, McpSourceErrorCodes.McpServerUnavailable) && err.message.includes('timed out')) throw err;
      // The server wants a sign-in: no other transport can do without it.
      if (isLoginRequired(err)) throw err;
      // Fall back to the legacy HTTP+SSE transport.
      const sse = new McpSession(server, newMcpClient(server, options.elicitation), sseTransport(url, headers, auth), 'sse', options);
      try {
        await sse.start(timeoutMs);
        return sse;
      } catch (sseErr) {
        await sse.close();
        if (isLoginRequired(sseErr)) throw sseErr;
        throw connectError(
          `server "${server.name}": cannot connect to ${url.origin}${url.pathname} over streamable HTTP (${(err as Error).message})` +
            ` nor SSE (${(sseErr as Error).message})`,
          server.name,
          'connect',
        );
      }
    }
  }

  /** The era this session negotiated: `modern` (2026-07-28, MRTR) or `legacy` (≤ 2025-11-25). */
  get era(): ProtocolEra {
    return this.client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  }

  /** The era this session negotiated, to hand to the next connect to the same server (`ConnectOptions.prior`). */
  get verdict(): PriorDiscovery {
    return discoveryVerdict(this.client);
  }

  private async start(timeoutMs: number, prior?: PriorDiscovery): Promise<void> {
    const name = this.server.name;
    // Legacy era: the server sends `elicitation/create` on the session, to whoever leases it.
    const elicitations = this.asks.elicitation ? bridgeElicitations(this.client, () => this.asking ?? this.asks.onElicit) : undefined;
    this.client.onclose = () => {
      this.closedFlag = true;
      this.onBroken?.();
    };
    // JSON-RPC ids unique across sessions (a call's rounds may run on different ones; see jsonrpc-ids.ts), nearest the wire.
    uniqueJsonRpcIds(this.transport);
    // Modern era: a result without `resultType` is complete (the SDK would reject it; see modern.ts).
    assumeCompleteWhenUnspecified(this.transport);
    // Modern era, tasks extension: a `resultType: "task"` result the SDK would reject (./tasks-modern.ts).
    this.taskResults = acceptTaskResults(this.transport);
    this.bareResults = watchBareResults(this.transport); // either era: a result with no content at all (./result.ts)
    try {
      await withTimeout(this.client.connect(this.transport, { timeout: timeoutMs, ...(prior ? { prior } : {}) }), timeoutMs, () =>
        connectError(`server "${name}": connect and initialize timed out after ${timeoutMs} ms`, name, 'initialize'),
      );
    } catch (err) {
      await this.close();
      if (isMcpSourceError(err, McpSourceErrorCodes.McpServerUnavailable)) throw err;
      const login = loginRequiredOf(err, name, 0);
      if (login) throw login;
      const stderr = this.stderr ? ` (stderr: ${this.stderr.slice(-500)})` : '';
      const code = (err as NodeJS.ErrnoException)?.code;
      if (this.server.transport === 'stdio' && code && PERMANENT_SPAWN_ERRORS.has(code)) {
        const what = code === 'ENOENT' ? 'not found' : 'not executable';
        throw connectError(
          `server "${name}": cannot start command ${JSON.stringify(this.server.command)} (${what}: ${code}); check its "command" and "cwd"`,
          name,
          'connect',
          true,
        );
      }
      throw connectError(`server "${name}": failed to connect: ${(err as Error).message}${stderr}`, name, 'connect');
    }
    elicitations?.admitArrivals(this.transport);
    try {
      await this.listTools();
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /**
   * List the server's tools now (every page, as sent: ./tool-list.ts), keep them in `tools` and return them,
   * within the server's timeout. Fails with an McpSourceError (McpServerUnavailable, phase `list`), permanent when the listing itself is wrong.
   */
  async listTools(): Promise<McpToolInfo[]> {
    const name = this.server.name;
    const timeoutMs = this.server.timeoutMs;
    let tools: McpToolInfo[];
    try {
      tools = await withTimeout(listAllTools(this.client, timeoutMs), timeoutMs, () =>
        connectError(`server "${name}": tools/list timed out after ${timeoutMs} ms`, name, 'list'),
      );
    } catch (err) {
      if (isMcpSourceError(err, McpSourceErrorCodes.McpServerUnavailable)) throw err;
      const login = loginRequiredOf(err, name, 0);
      if (login) throw login;
      throw connectError(`server "${name}": tools/list failed: ${(err as Error).message}`, name, 'list', isWrongListing(err));
    }
    const allow = this.server.tools;
    const listed = allow ? tools.filter((t) => allow.includes(t.name)) : tools;
    this.invalidTools.clear();
    this.paramHeaderDeclarations.clear();
    // Modern era (SEP-2243): a tool with an invalid `x-mcp-header` is left out (the client MUST NOT call it, and a
    // call to it fails as ProtocolViolation saying why); the others keep their declarations (their `Mcp-Param-*` headers).
    this.tools =
      this.era !== 'modern'
        ? listed
        : listed.filter((tool) => {
            const scan = scanParamHeaders(tool.inputSchema);
            if (!scan.valid) {
              this.invalidTools.set(tool.name, scan.reason);
              return false;
            }
            if (scan.headers.length > 0) this.paramHeaderDeclarations.set(tool.name, scan.headers);
            return true;
          });
    this.toolsListedAt = performance.now();
    return this.tools;
  }

  /** Call a tool by its original name. The timeout and abort signal are the caller's, never the SDK default. */
  async callTool(tool: string, args: Record<string, unknown> | undefined, options: CallOptions): Promise<ToolResult> {
    const outcome = await this.callToolRound(tool, args, {}, options);
    if (outcome.kind === 'complete') return outcome.result;
    if (outcome.kind === 'url_required')
      throw toolCallError(`server "${this.server.name}": tool "${tool}" requires URL elicitation: ${outcome.message}`, this.server.name, tool);
    throw toolCallError(`server "${this.server.name}": tool "${tool}" requires input (input_required); call it through callToolRound`, this.server.name, tool);
  }

  /**
   * One round trip of `tools/call`: a complete result, or (modern era) the round's input requests and
   * state, or (legacy era) the URL elicitations of a `-32042` error. `round` carries the previous round's
   * answers and its `requestState`, echoed as given.
   */
  async callToolRound(tool: string, args: Record<string, unknown> | undefined, round: RoundInput, options: CallOptions): Promise<RoundOutcome> {
    if (this.closedFlag) throw toolCallError(`server "${this.server.name}": session is closed`, this.server.name, tool);
    const invalid = this.invalidTools.get(tool);
    if (invalid !== undefined) {
      throw new McpSourceError(
        McpSourceErrorCodes.ProtocolViolation,
        `server "${this.server.name}": tool "${tool}" has an invalid x-mcp-header declaration (${invalid}), so it is never called`,
        { server: this.server.name, tool },
      );
    }
    // `client.request`, not `client.callTool`: the latter checks the result against the tool's outputSchema
    // *after* the tool ran and throws when it does not match. Retrying would run the tool again (its side
    // effects included), and failing would lose its result: the result is returned as the server sent it.
    // Node's timers fire at once for delays past 2^31-1 ms (about 24.8 days): longer is "no timeout" here.
    const timeoutMs = Math.min(options.timeoutMs, MAX_TIMER_MS);
    // A round's answers and state go in either era (a server may send a round in the legacy era too: modern.ts, readRound).
    const params = withRound({ name: tool, arguments: args ?? {} }, round);
    // The caller's trace context (W3C `traceparent`): the SDK merges it with the era's own `_meta` envelope
    // (protocol version, capabilities) and the progress token; it is sent on every round of the call.
    if (options.meta) params._meta = { ...options.meta };
    // Streamable HTTP in the modern era: the tool's `x-mcp-header` arguments as `Mcp-Param-*` headers (SEP-2243).
    const declared = this.transportKind === 'streamable-http' && this.era === 'modern' ? this.paramHeaderDeclarations.get(tool) : undefined;
    const headers = declared ? paramHeaders(declared, args) : undefined;
    // 2025-11-25 Tasks (SEP-1686): a tool that can only run as a task is called as one (./tasks-legacy.ts).
    const asTask =
      this.era === 'legacy' &&
      requiresTask(this.tools.find((t) => t.name === tool) as { execution?: unknown } | undefined) &&
      serverRunsToolTasks(this.client.getServerCapabilities());
    let raw: unknown;
    this.asking = options.onElicit;
    try {
      raw = asTask
        ? await callAsLegacyTask({
            client: this.client,
            server: this.server.name,
            tool,
            params,
            timeoutMs,
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          })
        : await this.client.request(
            { method: 'tools/call', params },
            {
              timeout: timeoutMs,
              signal: options.signal,
              maxTotalTimeout: timeoutMs,
              ...MODERN_REQUEST_OPTIONS,
              ...(options.onProgress ? { onprogress: options.onProgress } : {}),
              ...(headers && Object.keys(headers).length > 0 ? { headers } : {}),
            },
          );
    } catch (err) {
      const urlRequired = readUrlElicitationRequired(err);
      if (urlRequired) return urlRequired;
      throw (
        protocolViolation(err, this.server.name, tool) ??
        missingCapability(err, this.server.name, tool, this.server.tasks) ??
        backChannelRefusal(err, this.server.name, tool, this.era) ??
        refusalByBehaviour(err, this.server, tool, { era: this.era, verdict: this.verdict, round }) ??
        err
      );
    } finally {
      this.asking = undefined;
    }
    // Modern era, tasks extension: the server runs the call as a task (its id goes to the workflow before anything else).
    const task = this.taskResults?.take();
    if (task !== undefined) {
      if (this.era !== 'modern' || this.server.tasks === 'off')
        throw new McpSourceError(
          McpSourceErrorCodes.ProtocolViolation,
          `server "${this.server.name}": tool "${tool}" answered resultType "task" to a call that did not declare the tasks extension`,
          { server: this.server.name, tool },
        );
      return { kind: 'task', task: readModernTask(task, this.server.name, 'CreateTaskResult') };
    }
    // In `era: "auto"`, a modern-era error result that is the SDK's refusal of a server-initiated request (modern.ts):
    // the call runs again in the legacy era.
    const refusal = this.era === 'modern' && this.server.era === 'auto' ? refusedResult(raw, this.server.name, tool) : undefined;
    if (refusal) throw refusal;
    return readRound(raw, this.server.name, tool, this.bareResults?.take() === true) ?? { kind: 'complete', result: toToolResult(raw as any) };
  }

  /** The requests on a task of this server (2026-07-28 extension): `tasks/get`, `tasks/update`, `tasks/cancel`. */
  get tasks(): TaskRpc {
    return new TaskRpc(this.client, this.server.name, this.transportKind === 'streamable-http');
  }

  /** Close the session; a stdio server process is ended (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void> {
    if (!this.closing) {
      this.closedFlag = true;
      this.closing = (async () => {
        try {
          const terminating = terminateHttpSession(this.transport);
          if (terminating) await withTimeout(terminating, 2000, () => new Error('terminate timed out')).catch(() => undefined);
        } finally {
          await this.client.close().catch(() => undefined);
          await this.transport.close().catch(() => undefined);
        }
      })();
    }
    return this.closing;
  }
}
