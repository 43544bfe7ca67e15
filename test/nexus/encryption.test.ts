/**
 * Nexus across namespaces with durable-mcp's payload encryption (docs/nexus.md "What crosses namespaces"), on a real dev
 * server: payloads pass through the server untouched, so a caller that shares the key reads the result and nothing of
 * the call is plaintext in either namespace's history; a caller without the key still starts the call (a plaintext
 * input is accepted), and the result reaches it encrypted, which its workflow cannot read.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DurableMcpClient } from '../../src/client/index.js';
import { ENCRYPTED_ENCODING, EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { createWorker, type DurableMcpWorker } from '../../src/worker.js';
import { DevServer } from '../faults/lib.js';
import { backingWorkflowId, createNexusEndpoint } from '../helpers/nexus.js';
import { eventually, fixtureConfig, quietRuntime, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';

const callerWorkflows = fileURLToPath(new URL('./caller-workflows.js', import.meta.url));
const CALLER_NS = 'caller-encrypted';
const ENDPOINT = 'durable-mcp-encrypted';

/** A history as the server stores it (its protobuf encoding, every payload's bytes as they are), as text to search. */
async function storedText(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
}

describe('the Nexus service durable-mcp with encrypted payloads, called from another namespace', () => {
  let server: DevServer;
  let connection: NativeConnection;
  let dmc: DurableMcpClient;
  let keyed: Client;
  let keyless: Client;
  let durableMcp: DurableMcpWorker;
  const callerWorkers: Worker[] = [];
  let running: Promise<unknown>[] = [];
  const codec = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('nexus'), 'test'));
  let n = 0;

  before(async () => {
    quietRuntime();
    const dir = tempDir();
    server = await DevServer.create(join(dir, 'temporal'), `nexus-enc-${process.pid}`);
    await server.start();
    const taskQueue = uniqueTaskQueue('nexus-enc');
    await createNexusEndpoint(server.address, { namespace: CALLER_NS, endpoint: ENDPOINT, taskQueue });

    connection = await NativeConnection.connect({ address: server.address });
    durableMcp = await createWorker({
      connection,
      namespace: 'default',
      taskQueue,
      mcpConfig: fixtureConfig(join(dir, 'fixture.jsonl')),
      encryption: codec,
      nexus: true,
    });
    // Two callers in one namespace: one shares durable-mcp's key (its codec), one has none.
    for (const queue of ['keyed', 'keyless']) {
      const dataConverter = queue === 'keyed' ? { dataConverter: { payloadCodecs: [codec] } } : {};
      callerWorkers.push(await Worker.create({ connection, namespace: CALLER_NS, taskQueue: queue, workflowsPath: callerWorkflows, ...dataConverter }));
    }
    running = [durableMcp.run(), ...callerWorkers.map((w) => w.run())];
    const c = await server.client();
    dmc = new DurableMcpClient(new Client({ connection: c.connection, namespace: 'default', dataConverter: { payloadCodecs: [codec] } }), { taskQueue });
    keyed = new Client({ connection: c.connection, namespace: CALLER_NS, dataConverter: { payloadCodecs: [codec] } });
    keyless = new Client({ connection: c.connection, namespace: CALLER_NS });
  });

  after(async () => {
    durableMcp?.shutdown();
    for (const w of callerWorkers) w.shutdown();
    await Promise.allSettled(running);
    await connection?.close();
    await dmc?.client.connection.close();
    await server?.kill('SIGTERM');
  });

  const call = (client: Client, queue: 'keyed' | 'keyless', text: string) =>
    client.workflow.start('nexusCaller', {
      taskQueue: queue,
      workflowId: `caller-${queue}-${process.pid}-${++n}`,
      args: [ENDPOINT, 'callTool', { server: 'fx', tool: 'echo', arguments: { text } }],
    });

  it('a caller that shares the key gets the result; neither namespace stores the arguments or the result in plaintext', async () => {
    const secret = `secret-${randomUUID()}`;
    const caller = await call(keyed, 'keyed', secret);
    assert.deepEqual(await caller.result(), { output: `echo: ${secret}`, isError: false });
    const backing = dmc.client.workflow.getHandle(await backingWorkflowId(caller));
    for (const [what, handle] of [
      ['the caller', caller],
      ['durable-mcp', backing],
    ] as const) {
      const stored = await storedText(handle);
      assert.ok(stored.includes(ENCRYPTED_ENCODING), `${what}'s history holds encrypted payloads`);
      assert.ok(!stored.includes(secret), `${what}'s history holds no plaintext of the call`);
    }
  });

  it('a caller without the key starts the call (its plaintext input is accepted), and the result reaches it encrypted: its workflow cannot read it', async () => {
    const secret = `secret-${randomUUID()}`;
    const caller = await call(keyless, 'keyless', secret);
    const wid = await backingWorkflowId(caller);
    // durable-mcp ran the call from the plaintext input.
    assert.deepEqual(await dmc.result(wid), { output: `echo: ${secret}`, isError: false });
    // The caller's history has the result as durable-mcp's worker encoded it: encrypted, under durable-mcp's key id.
    const completed = await eventually(async () => {
      const events = (await caller.fetchHistory()).events ?? [];
      return events.find((e) => e.nexusOperationCompletedEventAttributes);
    }, 'the operation completed in the caller');
    const result = completed.nexusOperationCompletedEventAttributes!.result!;
    assert.equal(Buffer.from(result.metadata!.encoding!).toString(), ENCRYPTED_ENCODING);
    assert.ok(!(await storedText(caller)).includes(`echo: ${secret}`), 'no plaintext result in the caller');
    // Its workflow cannot decode it: the workflow task fails (and would until a worker with the key takes it).
    await eventually(async () => {
      const events = (await caller.fetchHistory()).events ?? [];
      return events.some((e) => e.workflowTaskFailedEventAttributes);
    }, "the caller's workflow task fails on the encrypted result");
    await caller.terminate('test: a caller without the key cannot read the result');
  });
});
