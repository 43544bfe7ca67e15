/**
 * How a scripted server (src/testing/scripted.ts) is served to the worker: over real stdio, through the stdio-socket
 * bridge the worker spawns (its stdin/stdout piped to a socket of this process, so the tools stay closures of the
 * test), or over real streamable HTTP (stateful sessions in the legacy era, stateless in the modern one).
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler, type Server as ModernServer } from '@modelcontextprotocol/server';
import { StdioServerTransport as ModernStdioTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ProtocolEra } from '../contract/era.js';

/** The stdio-socket bridge the worker runs as the stdio server's command: it pipes its stdin/stdout to the kit's socket. */
export const stdioSocketBridgePath: string = fileURLToPath(new URL('./stdio-socket-bridge.js', import.meta.url));

/** A server of the era, made anew for each session (stdio, legacy HTTP) or request (modern HTTP). */
export interface EraServers {
  era: ProtocolEra;
  legacy: () => LegacyServer;
  modern: () => ModernServer;
}

/** A scripted server served: the entry of the worker's MCP config, and what closes it. */
export interface Served {
  config: Record<string, unknown>;
  closers: Array<() => Promise<void>>;
}

/** Serve over stdio: a socket on loopback the bridge connects to, one MCP server per connection. */
export async function serveOverStdio({ era, legacy, modern }: EraServers): Promise<Served> {
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
      const server = legacy();
      closeServer = () => server.close();
      void server.connect(new LegacyStdioTransport(socket, socket));
    } else {
      const served = serveStdio(() => modern(), { transport: new ModernStdioTransport(socket, socket), legacy: 'reject' });
      closeServer = async () => (await served).close();
    }
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = listener.address() as AddressInfo;
  return {
    config: { command: [process.execPath, stdioSocketBridgePath, String(port)] },
    closers: [
      async () => {
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => listener.close(() => resolve()));
      },
    ],
  };
}

/** The legacy era over stateful streamable HTTP: the elicitation travels on the session's stream. */
function legacyHttpHandler(legacy: () => LegacyServer, closers: Array<() => Promise<void>>) {
  const sessions = new Map<string, { transport: LegacyHttpTransport; server: LegacyServer }>();
  closers.push(async () => {
    for (const { server } of sessions.values()) await server.close().catch(() => undefined);
  });
  return async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let entry = sid ? sessions.get(sid) : undefined;
    if (!entry) {
      if (sid) {
        res.writeHead(404).end();
        return;
      }
      const server = legacy();
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
}

/** The modern era over streamable HTTP: each request handed to the SDK's stateless handler, its response streamed back. */
function modernHttpHandler(modern: () => ModernServer, closers: Array<() => Promise<void>>) {
  const mcp = createMcpHandler(() => modern(), { legacy: 'reject' });
  closers.push(() => mcp.close());
  return async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
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
}

/** Serve over streamable HTTP on loopback, at `/mcp`. */
export async function serveOverHttp({ era, legacy, modern }: EraServers): Promise<Served> {
  const closers: Array<() => Promise<void>> = [];
  const handle = era === 'legacy' ? legacyHttpHandler(legacy, closers) : modernHttpHandler(modern, closers);
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
  closers.push(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return { config: { url: `http://127.0.0.1:${port}/mcp` }, closers };
}
