/** McpSource.load(config, waitFor) drives modern-era (MRTR) rounds in process, and the legacy -32042 form. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Answer, Request } from '../../src/contract/index.js';
import { isMcpSourceError, McpSource } from '../../src/mcp/index.js';
import { modernServerPath, readFixtureLog, startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { stdioFixture } from '../helpers/mcp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-source-mrtr-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const transport of ['stdio', 'streamable-http'] as const) {
  describe(`McpSource drives MRTR rounds through waitFor over ${transport}`, () => {
    const logPath = join(dir, `${transport}.jsonl`);
    let http: HttpFixture | undefined;
    let server: Record<string, unknown>;
    let src: McpSource;
    const seen: Request[] = [];
    let respond: (req: Request) => Answer = (req) => ({ id: req.id, ok: false });

    before(async () => {
      if (transport === 'stdio') server = { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: logPath } };
      else {
        http = await startHttpFixture({ script: modernServerPath, env: { FIXTURE_LOG: logPath } });
        server = { url: http.url };
      }
      src = await McpSource.load({ mcpServers: { m: server } }, async (req) => {
        seen.push(req);
        return respond(req);
      });
      assert.equal(src.status.m, 'connected');
    });
    after(async () => {
      await src?.close();
      await http?.close();
    });

    it('one question: waitFor gets the mapped Request, the server gets the mapped result', async () => {
      seen.length = 0;
      respond = (req) => ({ id: req.id, ok: true, data: { name: 'Ada' } });
      assert.equal((await src.callTool('m_ask_name')).output, 'Hello Ada');
      assert.equal(seen.length, 1);
      assert.equal(seen[0].kind, 'input');
      assert.equal(seen[0].prompt, 'What is your name?');
      const runs = readFixtureLog(logPath).filter((e) => e.tool === 'ask_name');
      assert.deepEqual(runs.at(-1)?.inputResponses, { name: { action: 'accept', content: { name: 'Ada' } } });
    });

    it('two rounds and a signed requestState: each round asks through waitFor, and the state comes back byte for byte', async () => {
      seen.length = 0;
      respond = (req) => ({ id: req.id, ok: true, data: req.prompt.startsWith('How old') ? { age: 36 } : { name: 'Grace' } });
      assert.equal((await src.callTool('m_two_rounds')).output, 'Grace is 36');
      assert.deepEqual(
        seen.map((r) => r.prompt),
        ['What is your name?', 'How old are you, Grace?'],
      );
      assert.match((await src.callTool('m_hmac_name')).output, /^verified Grace /);
    });

    it('declined reaches the server as decline; URL mode asks with kind authorization', async () => {
      respond = (req) => ({ id: req.id, ok: false, reason: 'declined' });
      assert.equal((await src.callTool('m_ask_name')).output, 'no name (decline)');
      seen.length = 0;
      respond = (req) => ({ id: req.id, ok: true });
      assert.equal((await src.callTool('m_connect_url')).output, 'connected');
      assert.equal(seen[0].kind, 'authorization');
      assert.equal(seen[0].url, 'https://auth.example.com/login?x=1');
    });

    it('the round cap and an undeclared sampling request fail with their own errors', async () => {
      await assert.rejects(
        src.callTool('m_never_done', {}, { maxRounds: 2 }),
        (err: unknown) => isMcpSourceError(err, 'RoundLimitExceeded') && /after 2 rounds/.test((err as Error).message),
      );
      await assert.rejects(
        src.callTool('m_sampling'),
        (err: unknown) => isMcpSourceError(err, 'UnsupportedInputRequest') && /sampling\/createMessage/.test((err as Error).message),
      );
    });

    it('without a waitFor no elicitation capability is declared: the compliant server never asks, and the call fails at once instead of hanging', async () => {
      const bare = await McpSource.load({ mcpServers: { m: server } });
      try {
        await assert.rejects(bare.callTool('m_ask_name'), /client capabilities do not declare the required capability/);
        assert.equal((await bare.callTool('m_plain', { label: 'x' })).output, 'plain x');
      } finally {
        await bare.close();
      }
    });
  });
}

describe('McpSource and the legacy -32042 form', () => {
  it('URL elicitations of a URLElicitationRequiredError go through waitFor, then the call is retried', async () => {
    const logPath = join(dir, 'legacy.jsonl');
    const seen: Request[] = [];
    const src = await McpSource.load({ mcpServers: { fx: stdioFixture(logPath) } }, (req) => {
      seen.push(req);
      return { id: req.id, ok: true };
    });
    try {
      assert.equal((await src.callTool('fx_needs_login', { marker: join(dir, 'marker') })).output, 'logged in');
      assert.equal(seen.length, 1);
      assert.equal(seen[0].kind, 'authorization');
      assert.equal(seen[0].prompt, 'Connect your Example account');
    } finally {
      await src.close();
    }
  });
});
