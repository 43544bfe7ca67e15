/**
 * Interop: a tool written with the official MCP Python SDK 2.x, served over stateless streamable HTTP,
 * asks a person through durable-mcp. (With the v1 client this failed: "Cannot send 'elicitation/create':
 * this transport context has no back-channel".) The Python tool asks the 2026-07-28 way (a Resolve(...)
 * parameter with Elicit[...]: input_required), which the worker makes durable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { startPythonServer } from '../fixtures/python/paths.js';
import { eventually, suiteWorker } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const extraServers: Record<string, unknown> = {};
let py: { url: string; close(): Promise<void> } | undefined;
before(async () => {
  py = await startPythonServer();
  extraServers.py = { url: py.url };
});
after(async () => {
  await py?.close();
});

describe('a Python SDK 2.x tool over stateless streamable HTTP', () => {
  const suite = suiteWorker({ name: 'interop-py', extraServers });

  it('asks through the worker: the Request is pending, nothing is held, the answer reaches the Python tool', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `py-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'py', tool: 'greet_mrtr' }],
    });
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
});
