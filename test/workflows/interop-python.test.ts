/**
 * Interop: a tool written with the official MCP Python SDK 2.x, served over stateless streamable HTTP,
 * asks a person through durable-mcp. (With the v1 client this failed: "Cannot send 'elicitation/create':
 * this transport context has no back-channel".) The Python tool asks the 2026-07-28 way (a Resolve(...)
 * parameter with Elicit[...]: input_required), which the worker makes durable.
 *
 * Encrypted: with the payload codec on the worker and the TS client, a Python Temporal client with its own
 * few-line implementation of the wire format (test/fixtures/python/encrypted_client.py: `cryptography`'s AESGCM
 * and `temporalio.api.common.v1.Payload`) decrypts the raw history, reads `pending` and answers with an
 * encrypted signal that the TS worker accepts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import {
  ENCRYPTED_ENCODING,
  ENCRYPTION_KEYS_ENV,
  EncryptionCodec,
  KEY_ID_METADATA,
  generateEncryptionKey,
  parseEncryptionKeys,
} from '../../src/codec/index.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { pythonEncryptedClientPath, pythonSdkDir, startPythonServer } from '../fixtures/python/paths.js';
import { serverForFile } from '../helpers/file-server.js';
import { eventually, fixtureConfig, startToolCall, startWorker, suiteEnvironment, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const { extraServers } = serverForFile(() => startPythonServer(), { py: {} });

describe('a Python SDK 2.x tool over stateless streamable HTTP', () => {
  const suite = suiteEnvironment({ name: 'interop-py', extraServers });

  it('asks through the worker: the Request is pending, nothing is held, the answer reaches the Python tool', async () => {
    const handle = await startToolCall(suite, 'py', { server: 'py', tool: 'greet_mrtr' });
    const [request] = await waitForPending(handle);
    assert.equal(request.kind, 'input');
    assert.equal(request.prompt, 'What is your name? (python, MRTR)');
    assert.deepEqual((request.data as any).schema, { properties: { name: { title: 'Name', type: 'string' } }, required: ['name'], type: 'object' });
    await eventually(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'no pending activity');
    assert.equal(suite.worker.pool.stats().py?.leased ?? 0, 0);
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
    const result = await handle.result();
    assert.equal(result.isError, false);
    assert.deepEqual(JSON.parse(result.output), { result: 'Hi Ada, welcome' });
  });

  it('encrypted: a Python client with its own implementation of the wire format decrypts the history, reads pending and answers; the TS worker accepts the answer', async () => {
    const keys = `${generateEncryptionKey('py-old')},${generateEncryptionKey('py-now')}`.split(',');
    // The worker encrypts with "py-now" and still reads "py-old"; the Python client holds both, in its own order.
    const codec = new EncryptionCodec(parseEncryptionKeys(`${keys[1]},${keys[0]}`, 'test'));
    const taskQueue = uniqueTaskQueue('interop-py-enc');
    const worker = await startWorker(suite.env, {
      taskQueue,
      mcpConfig: fixtureConfig(join(tempDir(), 'fixture.jsonl'), extraServers),
      encryption: codec,
    });
    const client = new Client({ connection: suite.env.connection, namespace: suite.env.namespace ?? 'default', dataConverter: { payloadCodecs: [codec] } });
    const workflowId = `py-enc-${Math.random().toString(36).slice(2)}`;
    await worker.runUntil(async () => {
      const handle = await client.workflow.start(mcpToolCall, { taskQueue, workflowId, args: [{ server: 'py', tool: 'greet_mrtr' }] });
      const { stdout } = await promisify(execFile)(
        'python3',
        [pythonEncryptedClientPath, suite.env.address, suite.env.namespace ?? 'default', workflowId, 'Grace'],
        { env: { ...process.env, PYTHONPATH: pythonSdkDir(), [ENCRYPTION_KEYS_ENV]: keys.join(',') }, timeout: 120_000 },
      );
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(seen.start, { server: 'py', tool: 'greet_mrtr' }, 'Python decrypted the start input from the raw history');
      assert.equal(seen.startEncoding, ENCRYPTED_ENCODING);
      assert.equal(seen.startKeyId, 'py-now');
      assert.ok(seen.encryptedPayloads > 0, 'the history holds encrypted payloads');
      // Temporal's Core writes a patch marker's details and the TemporalChangeVersion search attribute itself, without
      // the codec: they hold durable-mcp's patch ids, nothing else.
      assert.equal(seen.encryptedPayloads + seen.plainPayloads.length, seen.rawPayloads);
      for (const text of seen.plainPayloads as string[]) {
        const v = JSON.parse(text);
        const ids: unknown[] = Array.isArray(v) ? v : [v.id];
        assert.ok(
          ids.every((id) => typeof id === 'string' && id.startsWith('durable-mcp:')),
          `an unencrypted payload holds only patch ids: ${text}`,
        );
      }
      assert.equal(seen.promptInRawHistory, false, 'the prompt is not in the raw history');
      assert.equal(seen.promptInDecryptedHistory, true, '… and is in it once decrypted');
      assert.equal(seen.pending[0].prompt, 'What is your name? (python, MRTR)', 'Python read pending through its codec');
      const result = await handle.result();
      assert.equal(result.isError, false);
      assert.deepEqual(JSON.parse(result.output), { result: 'Hi Grace, welcome' }, "the TS worker decrypted Python's answer");
    });
    // The history as the server stores it (this client has no codec), as protobuf bytes.
    const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(await suite.env.client.workflow.getHandle(workflowId).fetchHistory()).finish());
    for (const plain of ['What is your name?', 'Grace']) assert.ok(!raw.includes(plain), `the raw history holds no "${plain}"`);
    assert.ok(raw.includes(KEY_ID_METADATA) && raw.includes('py-now'), 'the raw history names the key id');
  });
});
