/**
 * Issue 31, item 8: "encryption required" (DURABLE_MCP_REQUIRE_ENCRYPTION=1, or `"requireEncryption": true` in the
 * worker's MCP config). Without a key the CLI starts no workflow and writes no answer, the worker and the inbox refuse
 * to start, each with one line naming the setting and what is missing (exit code 2); with the keys a call and an answer
 * work and the history holds no plaintext of them. Real CLI, worker and inbox processes, a dev server, the fixture server.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateEncryptionKey } from '../../src/codec/index.js';
import { spawnNode } from '../../scripts/processes.js';
import { cli, cliHarness, EXIT, run } from '../helpers/cli.js';
import { tempDir } from '../helpers/temporal.js';

const REQUIRED = { DURABLE_MCP_REQUIRE_ENCRYPTION: '1' };
const NO_KEY = /encryption is required \(DURABLE_MCP_REQUIRE_ENCRYPTION=1\) and the (CLI|worker|inbox) has no encryption key: set DURABLE_MCP_ENCRYPTION_KEYS/;

describe('encryption required: no key, no start; with keys, everything works (real CLI, worker, inbox, dev server)', () => {
  const h = cliHarness();
  const keys = { DURABLE_MCP_ENCRYPTION_KEYS: generateEncryptionKey('k1') };

  it('the CLI without a key starts no workflow and writes no answer: one line naming the setting, exit 2', async () => {
    const env = { ...h.cliEnv, ...REQUIRED };
    const call = await run(['call', 'fx', 'echo', '--args', '{"text":"secret"}', '--workflow-id', 'req-no-key'], env);
    assert.equal(call.code, EXIT.USAGE, call.stderr);
    assert.match(call.stderr, NO_KEY);
    assert.equal(call.stderr.trim().split('\n').length, 1, call.stderr);
    await assert.rejects(h.env.client.workflow.getHandle('req-no-key').describe(), /not found/i, 'no workflow was started');

    const json = await run(['call', 'fx', 'echo', '--json'], env);
    assert.equal(json.code, EXIT.USAGE);
    assert.equal(JSON.parse(json.stdout).error, 'EncryptionRequired');

    const bad = await run(['pending'], { ...h.cliEnv, DURABLE_MCP_REQUIRE_ENCRYPTION: 'maybe' });
    assert.equal(bad.code, EXIT.USAGE);
    assert.match(bad.stderr, /DURABLE_MCP_REQUIRE_ENCRYPTION must be 1 \(true, yes\) or 0 \(false, no\), got "maybe"/);
  });

  it('a worker and an inbox without a key refuse to start; so does a worker whose config requires encryption', async () => {
    const worker = spawnNode([cli, 'worker', '--mcp-config', h.configPath], { ...h.cliEnv, ...REQUIRED });
    assert.equal(await worker.exited, EXIT.USAGE, worker.output());
    assert.match(worker.output(), NO_KEY);
    assert.doesNotMatch(worker.output(), /task queue/, 'it never polled');

    const config = join(tempDir('cli-require-'), 'mcp.json');
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(h.configPath, 'utf8')), requireEncryption: true }));
    const byConfig = spawnNode([cli, 'worker', '--json', '--mcp-config', config], h.cliEnv);
    assert.equal(await byConfig.exited, EXIT.USAGE, byConfig.output());
    const line = JSON.parse(byConfig.stdout().trim()) as { event: string; error: string; message: string };
    assert.equal(line.event, 'error');
    assert.equal(line.error, 'EncryptionRequired');
    assert.match(line.message, /encryption is required \("requireEncryption" in .*mcp\.json\) and the worker has no encryption key/);

    const inbox = spawnNode([cli, 'inbox', '--port', '0'], { ...h.cliEnv, ...REQUIRED });
    assert.equal(await inbox.exited, EXIT.USAGE, inbox.output());
    assert.match(inbox.output(), NO_KEY);
  });

  it('with the keys, a call and an answer work under the setting, and the history holds neither in plaintext', async () => {
    const env = { ...h.cliEnv, ...REQUIRED, ...keys };
    await h.startWorkerProcess({ ...REQUIRED, ...keys });
    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'req-keys'], env)).code, 0);
    const waited = await run(['pending', 'req-keys', '--wait', '60', '--json'], env);
    assert.equal(waited.code, 0, waited.stderr);
    const id = JSON.parse(waited.stdout)[0].pending[0].request.id as string;

    // An answer from a CLI without the key is refused before it is sent: the request stays pending.
    const refused = await run(['answer', 'req-keys', id, '--data', '{"name":"Plaintext"}'], { ...h.cliEnv, ...REQUIRED });
    assert.equal(refused.code, EXIT.USAGE);
    assert.match(refused.stderr, NO_KEY);
    const still = await run(['pending', 'req-keys', '--json'], env);
    assert.equal(JSON.parse(still.stdout)[0].pending[0].request.id, id, 'still pending');

    const answered = await run(['answer', 'req-keys', id, '--data', '{"name":"Ada Lovelace"}'], env);
    assert.equal(answered.code, 0, answered.stderr);
    const result = await run(['result', 'req-keys'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'hello Ada Lovelace');
    // The test's own client has no key: it reads the raw history.
    const history = JSON.stringify(await h.env.client.workflow.getHandle('req-keys').fetchHistory());
    assert.doesNotMatch(history, /Ada Lovelace|Plaintext/);
    assert.ok(!history.includes(Buffer.from('Ada Lovelace').toString('base64').slice(0, 12)), 'not even base64-encoded');
  });
});
