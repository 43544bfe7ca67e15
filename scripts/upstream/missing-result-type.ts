/**
 * Reproduction for modelcontextprotocol/typescript-sdk (see UPSTREAM.md, "a result without resultType"): the v2
 * client rejects a 2026-07-28 `tools/call` result that has no `resultType`, where the spec says "Client MUST assume
 * resultType complete when not specified" and the conformance scenario `sep-2322-client-request-state`
 * (`sep-2322-default-result-type-complete`) checks exactly that. Uses only `@modelcontextprotocol/client` and
 * `node:http`: a server that speaks `server/discover` and answers `tools/call` with `{ content: [...] }`.
 *
 *   npm run build && node dist/scripts/upstream/missing-result-type.js
 *
 * Prints what `client.callTool` gave and exits 1 while the SDK rejects the result (0 once it takes it as complete).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const meta = { ttlMs: 0, cacheScope: 'private' };
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = JSON.parse(body) as { id?: number | string; method: string };
    if (message.id === undefined) return void res.writeHead(202).end();
    const results: Record<string, unknown> = {
      'server/discover': {
        resultType: 'complete',
        ...meta,
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        serverInfo: { name: 'repro', version: '1' },
      },
      'tools/list': { resultType: 'complete', ...meta, tools: [{ name: 'hello', inputSchema: { type: 'object', properties: {} } }] },
      // No resultType: the client MUST take it as complete.
      'tools/call': { content: [{ type: 'text', text: 'hello' }] },
    };
    const result = results[message.method];
    const reply = result ? { jsonrpc: '2.0', id: message.id, result } : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not found' } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
const client = new Client({ name: 'repro', version: '1' }, { versionNegotiation: { mode: 'auto' } });
let code = 0;
try {
  await client.connect(new StreamableHTTPClientTransport(url));
  console.log(`negotiated: ${client.getProtocolEra()}`);
  const result = await client.callTool({ name: 'hello', arguments: {} });
  console.log('callTool resolved (expected):', JSON.stringify(result));
} catch (err) {
  console.log(`callTool rejected (the bug): ${(err as Error).message}`);
  code = 1;
} finally {
  await client.close();
  server.close();
}
process.exit(code);
