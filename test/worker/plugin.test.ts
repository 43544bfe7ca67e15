/**
 * DurableMcpPlugin in a user's own worker (docs/workflows.md, "Your own worker"): a real dev server, the fixture MCP
 * server over stdio, and `Worker.create({ plugins: [new DurableMcpPlugin(…)], workflowsPath: <the user's module> })`
 * running the user's workflow (which calls `executeMcpTool`) beside durable-mcp's `mcpToolCall`. What a user sees: the
 * elicitation pending and answered through DurableMcpClient, the results, the listing of workflows awaiting input (the
 * plugin's search-attribute checks), and payloads encrypted in history with the key the plugin was given, which a
 * Client reads through the client plugin.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { DurableMcpClient } from '../../src/client/index.js';
import { DurableMcpClientPlugin, ENCRYPTED_ENCODING, EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { DurableMcpPlugin } from '../../src/worker.js';
import { createLocalEnv, eventually, fixtureConfig, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import type { greetGuest } from './user-workflows.js';

const userWorkflows = fileURLToPath(new URL('./user-workflows.js', import.meta.url));

/** Every payload of a history (inputs, results, signals, updates, memo), found by its metadata. */
function payloadsOf(v: unknown, found: Array<{ metadata: Record<string, Uint8Array>; data?: Uint8Array }> = []) {
  if (!v || typeof v !== 'object' || v instanceof Uint8Array) return found;
  if (Array.isArray(v)) {
    for (const x of v) payloadsOf(x, found);
    return found;
  }
  const o = v as Record<string, unknown>;
  // A patch marker is written by Temporal Core, not through the codec; search attributes are never encoded.
  if (o.markerName === 'core_patch') return found;
  if (o.metadata && typeof o.metadata === 'object' && 'encoding' in o.metadata) found.push(o as never);
  else for (const [k, x] of Object.entries(o)) if (k !== 'searchAttributes') payloadsOf(x, found);
  return found;
}

describe('DurableMcpPlugin in your own worker, beside your own workflow', () => {
  let env: TestWorkflowEnvironment;
  const codec = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('plugin-key'), 'test'));
  const guest = `Ada-${randomUUID().slice(0, 8)}`;

  before(async () => {
    // env.client has no codec: it reads the raw history.
    env = await createLocalEnv({ searchAttributes: true, encryption: false });
  });
  after(async () => {
    await env?.teardown();
  });

  it("runs the user's workflow and mcpToolCall, asks through DurableMcpClient, and encrypts their payloads", async () => {
    const taskQueue = uniqueTaskQueue('plugin');
    const namespace = env.namespace ?? 'default';
    const plugin = new DurableMcpPlugin({ mcpConfig: fixtureConfig(join(tempDir(), 'log.jsonl')), encryption: codec });
    const worker = await Worker.create({ connection: env.nativeConnection, namespace, taskQueue, workflowsPath: userWorkflows, plugins: [plugin] });
    // A client of the user's with the client plugin: it reads and writes payloads as the worker does.
    const client = new Client({ connection: env.connection, namespace, plugins: [new DurableMcpClientPlugin({ encryption: codec })] });
    const durable = new DurableMcpClient(client, { taskQueue });
    const workflowId = `greet-${randomUUID().slice(0, 8)}`;

    const { greeting, toolCall, toolCallId } = await worker.runUntil(async () => {
      const handle = await client.workflow.start<typeof greetGuest>('greetGuest', { taskQueue, workflowId, args: ['the garden room'] });
      const [request] = await durable.waitForPending(workflowId, { timeoutMs: 30_000 });
      assert.equal(request?.kind, 'input');
      assert.equal(request?.prompt, 'What is your name?');
      // The plugin found the search attributes registered: the waiting workflow is listed as awaiting input.
      const listed = await eventually(async () => (await durable.listAwaitingInput()).find((w) => w.workflowId === workflowId), 'the workflow listed');
      assert.deepEqual(
        listed.pending.map((p) => p.request.id),
        [request!.id],
      );
      assert.equal((await durable.submit(workflowId, { id: request!.id, ok: true, data: { name: guest } })).action, 'accept');
      const greeting = await handle.result();
      // durable-mcp's own workflow on the same worker; the worker's plugin is a client plugin too.
      const call = await durable.startToolCall({ server: 'fx', tool: 'echo', arguments: { text: guest } });
      const toolCall = await new Client({ connection: env.connection, namespace, plugins: [plugin] }).workflow.getHandle(call.workflowId).result();
      return { greeting, toolCall, toolCallId: call.workflowId };
    });

    assert.equal(greeting, `echo: hello ${guest} in the garden room`);
    assert.deepEqual(toolCall, { output: `echo: ${guest}`, isError: false });
    for (const id of [workflowId, toolCallId]) {
      const payloads = payloadsOf(await env.client.workflow.getHandle(id).fetchHistory());
      assert.ok(payloads.length >= 2, `${id}: payloads in history: ${payloads.length}`);
      for (const p of payloads) {
        assert.equal(Buffer.from(p.metadata.encoding!).toString(), ENCRYPTED_ENCODING, `${id}: a payload in plaintext`);
        assert.equal(Buffer.from(p.data ?? []).includes(guest), false, `${id}: the guest's name in plaintext`);
      }
    }
    // A client without the codec cannot read the result.
    await assert.rejects(env.client.workflow.getHandle(workflowId).result());
    // One plugin serves one worker (it held that worker's sessions, closed when it stopped).
    await assert.rejects(Worker.create({ connection: env.nativeConnection, namespace, taskQueue, plugins: [plugin] }), /one plugin serves one worker/);
  });
  it('close() closes what it opened when Worker.create fails after it configured the worker (the worker never runs)', async () => {
    const plugin = new DurableMcpPlugin({ mcpConfig: fixtureConfig(join(tempDir(), 'log.jsonl')), encryption: codec });
    const boom = {
      name: 'boom',
      configureWorker(): never {
        throw new Error('a later plugin fails');
      },
    };
    const taskQueue = uniqueTaskQueue('plugin-fails');
    await assert.rejects(
      Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, plugins: [plugin, boom] }),
      /a later plugin fails/,
    );
    await plugin.close();
    await assert.rejects(plugin.pool.lease('fx'), /the session pool is closed/);
  });

  it('releases a call waiting for a human when the worker shuts down, then closes its MCP sessions', async () => {
    const taskQueue = uniqueTaskQueue('plugin-stop');
    const namespace = env.namespace ?? 'default';
    const plugin = new DurableMcpPlugin({ mcpConfig: fixtureConfig(join(tempDir(), 'log.jsonl')), encryption: codec });
    // A grace of 10 minutes (the plugin's default is 10 s): a worker that drained the waiting call would take all of it.
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace,
      taskQueue,
      workflowsPath: userWorkflows,
      plugins: [plugin],
      shutdownGraceTime: '10 minutes',
    });
    const durable = new DurableMcpClient(new Client({ connection: env.connection, namespace, plugins: [plugin] }), { taskQueue });
    const running = worker.run();
    const workflowId = `greet-${randomUUID().slice(0, 8)}`;
    await durable.client.workflow.start<typeof greetGuest>('greetGuest', { taskQueue, workflowId, args: ['the hall'] });
    await durable.waitForPending(workflowId, { timeoutMs: 30_000 });
    assert.equal(plugin.pool.stats().fx?.leased, 1, 'the waiting call holds its session');
    worker.shutdown();
    // Released at once, not drained: the worker stops long before its grace ends (half of it, 5 minutes, as the bound).
    let bound: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      running.then(() => 'stopped'),
      new Promise<string>((r) => (bound = setTimeout(() => r('still draining after 5 minutes'), 5 * 60_000))),
    ]).finally(() => clearTimeout(bound));
    assert.equal(stopped, 'stopped');
    assert.deepEqual(plugin.pool.stats().fx ?? { idle: 0, leased: 0, waiting: 0 }, { idle: 0, leased: 0, waiting: 0 });
    await durable.client.workflow.getHandle(workflowId).terminate('test over');
  });
});
