/** The payload codec (src/codec/encryption.ts): pure, no server. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  encryptionKeysFromEnv,
  generateEncryptionKey,
  isCodecError,
  KEY_ID_METADATA,
  parseEncryptionKeys,
} from '../../src/codec/index.js';

const keyA = generateEncryptionKey('a');
const keyB = generateEncryptionKey('b');
const secret = { name: 'Ada Lovelace', address: '12 St James Square' };

describe('the payload codec', () => {
  it('encrypts a payload so that none of its bytes show, and decrypts it back exactly', async () => {
    const codec = new EncryptionCodec(parseEncryptionKeys(keyA, 'test'));
    const plain = defaultPayloadConverter.toPayload(secret);
    const [enc] = await codec.encode([plain]);
    assert.equal(Buffer.from(enc.metadata!.encoding!).toString(), ENCRYPTED_ENCODING);
    assert.equal(Buffer.from(enc.metadata![KEY_ID_METADATA]!).toString(), 'a');
    assert.ok(!Buffer.from(enc.data!).toString('latin1').includes('Lovelace'));
    const [dec] = await codec.decode([enc]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(dec), secret);
    const [enc2] = await codec.encode([plain]);
    assert.notDeepEqual(Buffer.from(enc2.data!), Buffer.from(enc.data!), 'a fresh nonce per payload');
  });

  it('passes a payload without the encoding through (histories recorded before encryption replay)', async () => {
    const codec = new EncryptionCodec(parseEncryptionKeys(keyA, 'test'));
    const plain = defaultPayloadConverter.toPayload(secret);
    assert.deepEqual(await codec.decode([plain]), [plain]);
  });

  it('rotates: with a new key first, payloads of the old key still decode and new ones use the new key', async () => {
    const old = new EncryptionCodec(parseEncryptionKeys(keyA, 'test'));
    const [enc] = await old.encode([defaultPayloadConverter.toPayload(secret)]);
    const rotated = new EncryptionCodec(parseEncryptionKeys(`${keyB},${keyA}`, 'test'));
    assert.deepEqual(defaultPayloadConverter.fromPayload((await rotated.decode([enc]))[0]), secret);
    const [fresh] = await rotated.encode([defaultPayloadConverter.toPayload(1)]);
    assert.equal(Buffer.from(fresh.metadata![KEY_ID_METADATA]!).toString(), 'b');
  });

  it('fails naming the key id when the key that encrypted a payload was removed', async () => {
    const [enc] = await new EncryptionCodec(parseEncryptionKeys(keyA, 'test')).encode([defaultPayloadConverter.toPayload(secret)]);
    const withoutA = new EncryptionCodec(parseEncryptionKeys(keyB, 'test'));
    await assert.rejects(withoutA.decode([enc]), (err: Error) => isCodecError(err, 'UnknownEncryptionKey') && err.keyId === 'a' && /key "a"/.test(err.message));
  });

  it('refuses altered data and a different key under the same id, never returning garbage', async () => {
    const [enc] = await new EncryptionCodec(parseEncryptionKeys(keyA, 'test')).encode([defaultPayloadConverter.toPayload(secret)]);
    const altered = { ...enc, data: Uint8Array.from(enc.data!, (b, i) => (i === 20 ? b ^ 1 : b)) };
    const codec = new EncryptionCodec(parseEncryptionKeys(keyA, 'test'));
    await assert.rejects(codec.decode([altered]), (err: unknown) => isCodecError(err, 'DecryptionFailed'));
    const impostor = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('a'), 'test'));
    await assert.rejects(impostor.decode([enc]), (err: unknown) => isCodecError(err, 'DecryptionFailed'));
  });

  it('bad key material is an error naming the variable and the problem, never the key', () => {
    const env = (v: string) => ({ DURABLE_MCP_ENCRYPTION_KEYS: v });
    const short = `k1:${Buffer.alloc(16).toString('base64')}`;
    const cases: [string, RegExp][] = [
      ['nocolon', /DURABLE_MCP_ENCRYPTION_KEYS: entry 1 is not keyId:base64key/],
      [short, /DURABLE_MCP_ENCRYPTION_KEYS: entry 1 \(key "k1"\): the key is 16 bytes, AES-256 needs 32/],
      ['k1:not base64!', /the key is not base64/],
      [`${keyA},${keyA}`, /key id "a" appears twice/],
      [`bad id:${Buffer.alloc(32).toString('base64')}`, /entry 1: the key id \(before ":"\) must be/],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => encryptionKeysFromEnv(env(value)),
        (err: Error) => isCodecError(err, 'EncryptionConfig') && message.test(err.message) && !err.message.includes(value.split(':')[1] ?? '\u0000'),
      );
    }
    // Written the wrong way round (base64key:keyId): the key would be the "id", and is not quoted.
    const material = keyA.split(':')[1];
    assert.throws(
      () => encryptionKeysFromEnv(env(`${material}:a`)),
      (err: Error) => /entry 1: the key id \(before ":"\) must be/.test(err.message) && !err.message.includes(material),
    );
    assert.equal(encryptionKeysFromEnv({}), undefined);
  });

  it('reads the keys from DURABLE_MCP_ENCRYPTION_KEYS_FILE, and names the file it cannot read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmcp-keys-'));
    const file = join(dir, 'keys');
    writeFileSync(file, `${keyB}\n${keyA}\n`);
    assert.deepEqual(
      encryptionKeysFromEnv({ DURABLE_MCP_ENCRYPTION_KEYS_FILE: file })?.map((k) => k.id),
      ['b', 'a'],
    );
    assert.throws(
      () => encryptionKeysFromEnv({ DURABLE_MCP_ENCRYPTION_KEYS_FILE: join(dir, 'none') }),
      /DURABLE_MCP_ENCRYPTION_KEYS_FILE: cannot read .*none: ENOENT/,
    );
    assert.throws(() => encryptionKeysFromEnv({ DURABLE_MCP_ENCRYPTION_KEYS: keyA, DURABLE_MCP_ENCRYPTION_KEYS_FILE: file }), /not both/);
  });

  it('encryption required: no codec (none in the environment, or encryption: false) is refused naming the setting; a key passes', async () => {
    const { resolveEncryption } = await import('../../src/codec/index.js');
    const { DurableMcpPlugin } = await import('../../src/worker/plugin.js');
    const required = { DURABLE_MCP_REQUIRE_ENCRYPTION: '1' };
    assert.throws(
      () => resolveEncryption(undefined, required, { who: 'the CLI' }),
      (err: Error) =>
        isCodecError(err, 'EncryptionRequired') &&
        /^encryption is required \(DURABLE_MCP_REQUIRE_ENCRYPTION=1\) and the CLI has no encryption key: set DURABLE_MCP_ENCRYPTION_KEYS/.test(err.message),
    );
    assert.throws(() => resolveEncryption(false, { DURABLE_MCP_REQUIRE_ENCRYPTION: 'true' }), /this process was given no payload codec \(encryption: false\)/);
    assert.throws(
      () => resolveEncryption(undefined, {}, { requiredBy: 'the requireEncryption option' }),
      /encryption is required \(the requireEncryption option\)/,
    );
    assert.equal(resolveEncryption(undefined, { ...required, DURABLE_MCP_ENCRYPTION_KEYS: keyA })?.keyId, 'a');
    assert.equal(resolveEncryption(undefined, { DURABLE_MCP_REQUIRE_ENCRYPTION: '0' }), undefined);
    // A worker of yours: the plugin refuses before anything connects, by option or by the config's field.
    const mcpConfig = { mcpServers: {} };
    assert.throws(() => new DurableMcpPlugin({ mcpConfig, encryption: false, requireEncryption: true }), /the worker was given no payload codec/);
    assert.throws(() => new DurableMcpPlugin({ mcpConfig: { ...mcpConfig, requireEncryption: true } }), /"requireEncryption" in the MCP config/);
    assert.throws(() => new DurableMcpPlugin({ mcpConfig: { ...mcpConfig, requireEncryption: 'yes' } }), /field "requireEncryption" must be true or false/);
  });

  it('encryption required: the library client, the client plugin and the testing kit refuse without a key, before anything connects', async () => {
    const { connectClient } = await import('../../src/client/connection.js');
    const { DurableMcpClientPlugin } = await import('../../src/codec/plugin.js');
    const { createTestEnvironment } = await import('../../src/testing/environment.js');
    // A listener where Temporal would be: it counts the connections the client opens (none may be).
    let connections = 0;
    const listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const saved = Object.fromEntries(
      ['DURABLE_MCP_REQUIRE_ENCRYPTION', 'DURABLE_MCP_ENCRYPTION_KEYS', 'DURABLE_MCP_ENCRYPTION_KEYS_FILE'].map((k) => [k, process.env[k]]),
    );
    const required = (err: unknown, missing: RegExp) =>
      isCodecError(err, 'EncryptionRequired') &&
      /^encryption is required \(DURABLE_MCP_REQUIRE_ENCRYPTION=1\) and /.test((err as Error).message) &&
      missing.test((err as Error).message);
    const noKey = /this process has no encryption key: set DURABLE_MCP_ENCRYPTION_KEYS/;
    const noCodec = /this process was given no payload codec \(encryption: false\)/;
    try {
      delete process.env.DURABLE_MCP_ENCRYPTION_KEYS;
      delete process.env.DURABLE_MCP_ENCRYPTION_KEYS_FILE;
      process.env.DURABLE_MCP_REQUIRE_ENCRYPTION = '1';
      await assert.rejects(connectClient({ address }), (err) => required(err, noKey));
      await assert.rejects(connectClient({ address, encryption: false }), (err) => required(err, noCodec));
      assert.equal(connections, 0, 'the client never connected');
      assert.throws(
        () => new DurableMcpClientPlugin(),
        (err) => required(err, noKey),
      );
      assert.throws(
        () => new DurableMcpClientPlugin({ encryption: false }),
        (err) => required(err, noCodec),
      );
      await assert.rejects(createTestEnvironment({ mcpConfig: { mcpServers: {} } }), (err) => required(err, noKey));
      await assert.rejects(createTestEnvironment({ mcpConfig: { mcpServers: {} }, encryption: false }), (err) => required(err, noCodec));
      // With a key, the same settings pass.
      process.env.DURABLE_MCP_ENCRYPTION_KEYS = keyA;
      assert.equal(new DurableMcpClientPlugin().encryption?.keyId, 'a');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      listener.close();
    }
  });
});
