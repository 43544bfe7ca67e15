/**
 * A published legacy-era server, `@modelcontextprotocol/server-everything` (built on the v1 SDK), through the
 * worker's v2 client: its elicitation (`elicitation/create` on the live session) is durable as before.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { submitAnswerUpdate } from '../../src/workflows/messages.js';
import { suiteWorker } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const require = createRequire(import.meta.url);
const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

describe('@modelcontextprotocol/server-everything (legacy era) through the v2 client', () => {
  const suite = suiteWorker({ name: 'everything', extraServers: { everything: { command: [process.execPath, everything, 'stdio'] } } });

  it('its form elicitation is a pending input Request; the validated answer (defaults applied) reaches the server as accept', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `everything-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'everything', tool: 'trigger-elicitation-request' }],
    });
    const [request] = await waitForPending(handle);
    assert.equal(request.kind, 'input');
    assert.equal(request.prompt, 'Please provide inputs for the following fields:');
    assert.deepEqual((request.data as any).schema.required, ['name']);
    // The v2 client hands the raw requestedSchema on: every keyword the server sent is there.
    assert.equal((request.data as any).schema.properties.integer.default, 42);
    await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada', integer: 500 } }] }), (err: any) =>
      /field "integer"/.test(String(err.cause?.message)),
    );
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    const result = await handle.result();
    assert.equal(result.isError, false);
    assert.match(result.output, /User provided the requested information/);
    assert.match(result.output, /"action": "accept"/);
    assert.match(result.output, /"name": "Ada"/);
    assert.match(result.output, /"integer": 42/, 'defaults applied before the answer went out');
  });
});
