/**
 * The three MCP transports a session can run on, neither era's business: stdio (the server is a child process),
 * streamable HTTP, and the older HTTP+SSE it falls back to. `${ENV_VAR}`s of `env` and `headers` are expanded
 * here, at connect time, and never logged.
 */
import {
  extractWWWAuthenticateParams,
  InsufficientScopeError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type FetchLike,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { expandEnv, type HttpServerConfig, type StdioServerConfig } from './config.js';

export type TransportKind = 'stdio' | 'streamable-http' | 'sse';

/** Spawns the server's command; `onStderrLine` gets each non-empty line of its stderr. */
export function stdioTransport(server: StdioServerConfig, onStderrLine: (line: string) => void): StdioClientTransport {
  const env = server.env
    ? Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, expandEnv(v, { server: server.name, field: `env.${k}` })]))
    : undefined;
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...env },
    cwd: server.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) onStderrLine(line);
  });
  return transport;
}

/** The server's `headers`, expanded (once per connect: both HTTP transports of one connect send the same). */
export function httpHeaders(server: HttpServerConfig): Record<string, string> | undefined {
  return server.headers
    ? Object.fromEntries(Object.entries(server.headers).map(([k, v]) => [k, expandEnv(v, { server: server.name, field: `headers.${k}` })]))
    : undefined;
}

/** `authProvider`: a server behind OAuth (the bearer token, and what a 401 means: src/mcp/auth/credentials.ts). */
export function streamableHttpTransport(url: URL, headers: Record<string, string> | undefined, authProvider?: AuthProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(url, { requestInit: headers ? { headers } : undefined, ...(authProvider ? { authProvider } : {}) });
}

/**
 * A server behind OAuth over HTTP+SSE: its `403 insufficient_scope` becomes the SDK's `InsufficientScopeError`, as the
 * streamable HTTP transport throws it (the SSE transport reads no scope challenge), so the call asks for a step-up.
 */
function scopeChallenges(base: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status !== 403) return response;
    const { error, scope, resourceMetadataUrl, errorDescription } = extractWWWAuthenticateParams(response);
    if (error !== 'insufficient_scope') return response;
    await response.text().catch(() => undefined);
    throw new InsufficientScopeError({
      ...(scope ? { requiredScope: scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      ...(errorDescription ? { errorDescription } : {}),
    });
  };
}

/** The legacy HTTP+SSE transport: the headers go on its POSTs and on the event stream's GET. */
export function sseTransport(url: URL, headers: Record<string, string> | undefined, authProvider?: AuthProvider): SSEClientTransport {
  return new SSEClientTransport(url, {
    ...(authProvider ? { authProvider, fetch: scopeChallenges((u, init) => fetch(u, init)) } : {}),
    requestInit: headers ? { headers } : undefined,
    eventSourceInit: headers ? { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } : undefined,
  });
}

/** Process id of a stdio server, for diagnostics. */
export function transportPid(transport: Transport): number | undefined {
  return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
}

/** Ends a streamable HTTP session on the server (DELETE with its session id); undefined when there is none. */
export function terminateHttpSession(transport: Transport): Promise<void> | undefined {
  return transport instanceof StreamableHTTPClientTransport && transport.sessionId ? transport.terminateSession() : undefined;
}

/** What `interceptMessages` does to each message: return it as it is, or a replacement. */
export interface MessageHooks {
  /** Each message the client sends, before the transport writes it. */
  outgoing?: (message: JSONRPCMessage) => JSONRPCMessage;
  /** Each message the transport read, before the client sees it. */
  incoming?: (message: JSONRPCMessage) => JSONRPCMessage;
}

/**
 * Rewrites the messages between the SDK's client and `transport`, installed before `connect()` (the SDK sets
 * `onmessage` then, and again around its discovery probe). Interceptors stack: the one installed first is nearest
 * the wire. Whoever reads `onmessage` to wrap it (./legacy.ts) gets the intercepted function and sets it back: a
 * message an interceptor already handled passes it untouched the second time.
 */
export function interceptMessages(transport: Transport, hooks: MessageHooks): void {
  const { outgoing, incoming } = hooks;
  if (outgoing) {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => send(outgoing(message), options);
  }
  if (!incoming) return;
  let prior: PropertyDescriptor | undefined;
  for (let o: object | null = transport; o && !prior; o = Object.getPrototypeOf(o)) prior = Object.getOwnPropertyDescriptor(o, 'onmessage');
  const accessor = prior?.get || prior?.set ? prior : undefined;
  let dispatch: Transport['onmessage'] = accessor ? undefined : (prior?.value as Transport['onmessage']);
  const handled = new WeakSet<object>();
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (accessor ? (accessor.get?.call(transport) as Transport['onmessage']) : dispatch),
    set: (fn: Transport['onmessage']) => {
      const wrapped = fn
        ? (message: JSONRPCMessage, extra?: unknown) => {
            const out = handled.has(message) ? message : incoming(message);
            handled.add(out);
            (fn as (m: JSONRPCMessage, e?: unknown) => void)(out, extra);
          }
        : fn;
      if (accessor) accessor.set?.call(transport, wrapped);
      else dispatch = wrapped;
    },
  });
}
