/**
 * Reproduction for modelcontextprotocol/typescript-sdk (see UPSTREAM.md, "HTTP+SSE ignores 403 insufficient_scope"):
 * the same server answer, `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`, reaches the
 * caller as the SDK's `InsufficientScopeError` over streamable HTTP (which also steps up with an OAuth provider) and as
 * a plain `Error("Error POSTing to endpoint (HTTP 403) ...")` over the HTTP+SSE transport, whose `send` handles only
 * 401: no step-up, and nothing a caller can tell from any other failure. Uses only `@modelcontextprotocol/client` and
 * `node:http`, with the same bearer-token `authProvider` on both transports.
 *
 *   npm run build && node dist/scripts/upstream/sse-insufficient-scope.js
 *
 * Prints the error each transport gave and exits 1 while the SSE transport does not give InsufficientScopeError.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, InsufficientScopeError, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';

const challenge = 'Bearer error="insufficient_scope", scope="tools tools.write", error_description="needs tools.write"';
const server = createServer((req, res) => {
  // The HTTP+SSE transport's event stream: its first event names where the messages go.
  if (req.method === 'GET' && req.url === '/sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write('event: endpoint\ndata: /messages\n\n');
    return;
  }
  // Every message (the first is `initialize`), on either transport: the token lacks a scope.
  if (req.method === 'POST') {
    req.resume();
    req.on('end', () => res.writeHead(403, { 'www-authenticate': challenge, 'content-type': 'text/plain' }).end('insufficient scope'));
    return;
  }
  res.writeHead(405).end();
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
// A bearer token and nothing else (no OAuth flow): both transports take an AuthProvider.
const authProvider = { token: async () => 'a-token-without-tools.write' };

async function errorOf(transport: Transport): Promise<unknown> {
  const client = new Client({ name: 'repro', version: '1' });
  try {
    await client.connect(transport);
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await client.close().catch(() => undefined);
  }
}

const describe = (err: unknown) => (err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err));
const streamable = await errorOf(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider }));
const sse = await errorOf(new SSEClientTransport(new URL(`${base}/sse`), { authProvider }));
console.log(`streamable HTTP: ${describe(streamable)} (InsufficientScopeError: ${streamable instanceof InsufficientScopeError})`);
console.log(`HTTP+SSE:        ${describe(sse)} (InsufficientScopeError: ${sse instanceof InsufficientScopeError})`);
server.closeAllConnections();
server.close();
process.exitCode = sse instanceof InsufficientScopeError ? 0 : 1;
