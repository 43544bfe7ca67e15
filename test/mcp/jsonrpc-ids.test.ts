/**
 * JSON-RPC ids unique across sessions (src/mcp/jsonrpc-ids.ts), in the legacy era, against the SDK fixture
 * server, which logs the id of each `tools/call` it receives: two sessions one after the other never send the same
 * id for their calls (the SDK alone numbers both from 0), one session's ids count up, and a cancellation reaches the
 * server under the id that went out. The modern era's rounds on fresh sessions: test/workflows/protocol.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { McpSession, parseMcpConfig } from '../../src/mcp/index.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { events, stdioFixture, waitUntil } from '../helpers/mcp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-jsonrpc-ids-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const transport of ['stdio', 'streamable-http'] as const) {
  describe(`JSON-RPC ids over ${transport} (legacy era)`, () => {
    const logPath = join(dir, `${transport}.jsonl`);
    let http: HttpFixture | undefined;
    let entry: Record<string, unknown>;
    before(async () => {
      if (transport === 'stdio') entry = stdioFixture(logPath);
      else {
        http = await startHttpFixture({ env: { FIXTURE_LOG: logPath } });
        entry = { url: http.url };
      }
    });
    after(async () => {
      await http?.close();
    });
    const connect = () => McpSession.connect(parseMcpConfig({ mcpServers: { fx: entry } }).servers.fx, { elicitation: false });
    const callIds = () => events(logPath, 'call', 'echo').map((e) => e.requestId as number);

    it('two sessions one after the other send their calls with different ids; within a session they count up', async () => {
      for (let i = 0; i < 2; i++) {
        const session = await connect();
        try {
          assert.equal(session.era, 'legacy');
          await session.callTool('echo', { text: `a${i}` }, { timeoutMs: 10_000 });
          await session.callTool('echo', { text: `b${i}` }, { timeoutMs: 10_000 });
        } finally {
          await session.close();
        }
      }
      const [a0, b0, a1, b1] = callIds();
      assert.equal(typeof a0, 'number');
      assert.equal(b0, a0 + 1, 'one session counts up');
      assert.equal(b1, a1 + 1, 'one session counts up');
      assert.equal(new Set([a0, b0, a1, b1]).size, 4, `no id sent twice across the two sessions: ${[a0, b0, a1, b1]}`);
      for (const id of [a0, b0, a1, b1]) assert.ok(Number.isInteger(id) && id > 0 && id < 2 ** 31, `a positive 32-bit integer: ${id}`);
    });

    it('a cancelled call: the server sees the cancellation of the id that went out, and the session goes on', async () => {
      const session = await connect();
      try {
        const controller = new AbortController();
        const call = session.callTool('hang', {}, { timeoutMs: 60_000, signal: controller.signal });
        await waitUntil(() => events(logPath, 'call', 'hang').length === 1, 10_000, 'the hang call to arrive');
        controller.abort(new Error('caller gave up'));
        await assert.rejects(call, /caller gave up/);
        await waitUntil(() => events(logPath, 'aborted', 'hang').length === 1, 10_000, 'the fixture to log "aborted"');
        assert.deepEqual(await session.callTool('echo', { text: 'after' }, { timeoutMs: 10_000 }), { output: 'echo: after', isError: false });
      } finally {
        await session.close();
      }
    });
  });
}
