import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { dataConverterOf, EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { historiesDir } from '../helpers/history.js';
import { AGENT_WORKFLOW_TYPES, committedHistories, replayCommitted } from '../helpers/replay.js';
import { quietRuntime } from '../helpers/temporal.js';

const histories = committedHistories();
const names = histories.map((h) => h.name);

/** Every payload of a history, decoded (the JSON format holds them in base64). */
function payloadTexts(json: unknown): string[] {
  const out: string[] = [];
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) return o.forEach(walk);
    if (!o || typeof o !== 'object') return;
    const { metadata, data } = o as { metadata?: unknown; data?: unknown };
    if (metadata && typeof data === 'string') out.push(Buffer.from(data, 'base64').toString('utf8'));
    Object.values(o).forEach(walk);
  };
  walk(json);
  return out;
}

describe('committed workflow histories replay with the current workflow code', () => {
  it('has the histories of the accept, expiry, release and restart paths', () => {
    for (const name of ['accept', 'expiry', 'release-hold-for', 'release-server-gave-up', 'restart-graceful', 'restart-sigkill']) {
      assert.ok(names.includes(name), `test/histories/${name}.json is committed`);
    }
  });

  it('has the histories of an agent (mcpAgent), a login that signed in (mcpLogin) and an approved call', () => {
    const typeOf = (name: string) => histories.find((h) => h.name === name)?.workflowType;
    assert.equal(typeOf('agent-ask-name'), 'mcpAgent', 'test/histories/agent-ask-name.json is committed');
    assert.ok(AGENT_WORKFLOW_TYPES.includes('mcpAgent'));
    assert.equal(typeOf('login-signed-in'), 'mcpLogin', 'test/histories/login-signed-in.json is committed');
    assert.equal(typeOf('approval-approved'), 'mcpToolCall', 'test/histories/approval-approved.json is committed');
  });

  it('holds no credential in plaintext: a login keeps its tokens, registration, verifier and code sealed', () => {
    // The field names of an unsealed token set, client registration or PKCE verifier, and an authorization code (in a
    // redirect URL, or a callback's unsealed `code`).
    const credential = /access_?token|refresh_?token|id_?token|client_?secret|code_?verifier|[?&]code=|"code":"/i;
    const found = histories.flatMap((h) =>
      payloadTexts(h.json)
        .filter((t) => credential.test(t))
        .map((t) => `${h.name}: ${t.slice(0, 200)}`),
    );
    assert.deepEqual(found, []);
    const recorded = histories.find((h) => h.name === 'login-signed-in');
    assert.ok(recorded, 'test/histories/login-signed-in.json is committed');
    const login = payloadTexts(recorded.json).join('\n');
    const sealed = [...login.matchAll(/"(sealed|sealedCode)":"([^"]*)"/g)].map((m) => m[2]!);
    assert.ok(sealed.length >= 3, 'the login holds its credentials and the code it exchanged');
    assert.deepEqual(
      sealed.filter((s) => !/^s1\.[\w-]+\.[\w-]+$/.test(s)),
      [],
      'each sealed (s1.<key id>.<ciphertext>)',
    );
  });

  it('asks patched() only through the registry of versions (src/workflows/versions.ts)', () => {
    const workflows = join(historiesDir, '..', '..', 'src', 'workflows');
    const callers = readdirSync(workflows, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== 'versions.ts')
      .filter((f) => /\bpatched\(|deprecatePatch\(/.test(readFileSync(join(workflows, f), 'utf8')))
      .map((f) => relative(workflows, join(workflows, f)));
    assert.deepEqual(callers, [], 'a workflow asks since(Versions.X), never patched() itself');
  });

  // Recorded before encryption: plaintext payloads pass through a worker that has a key. An agent's history replays
  // with an agent worker's bundle (test/helpers/replay.ts), the others with durable-mcp's prebuilt one.
  for (const encrypted of [false, true]) {
    it(`replays every history without nondeterminism${encrypted ? ', with a worker that has an encryption key (plaintext passes through)' : ''}`, async () => {
      quietRuntime();
      const dataConverter = encrypted ? dataConverterOf(new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('k1'), 'test'))) : undefined;
      const { replayed, failures } = await replayCommitted(histories, dataConverter ? { dataConverter } : {});
      assert.deepEqual(replayed.sort(), [...names].sort());
      assert.deepEqual(failures, []);
    });
  }
});
