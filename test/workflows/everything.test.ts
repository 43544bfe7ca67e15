/**
 * A published legacy-era server, `@modelcontextprotocol/server-everything` (built on the v1 SDK), through the
 * worker's v2 client: its elicitation (`elicitation/create` on the live session) is durable as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { everything, startEverythingHttp } from '../helpers/everything.js';
import { serverForFile } from '../helpers/file-server.js';
import { eventually, startToolCall, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

describe('@modelcontextprotocol/server-everything (legacy era) through the v2 client', () => {
  const suite = suiteEnvironment({ name: 'everything', extraServers: { everything: { command: [process.execPath, everything, 'stdio'] } } });

  it('its form elicitation is a pending input Request; the validated answer (defaults applied) reaches the server as accept', async () => {
    const handle = await startToolCall(suite, 'everything', { server: 'everything', tool: 'trigger-elicitation-request' });
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

/** server-everything over stdio, and over streamable HTTP (started in `before`). */
const { extraServers } = serverForFile(startEverythingHttp, { everythinghttp: {} }, { everything: { command: [process.execPath, everything, 'stdio'] } });

/**
 * Issue #21: "the -32042 path of trigger-url-elicitation hangs about 90 s through the worker". It does not: through
 * the worker, over stdio and streamable HTTP, the call ends as soon as its requests are answered. The server asks
 * twice by design: the -32042 error names a prerequisite URL (https://modelcontextprotocol.io); once that is done and
 * the call retried with the same arguments, the tool goes down its request path and sends `elicitation/create` for
 * the URL it was given. A person (or a bot) that answers only the first request leaves the second pending: the call
 * is released after `holdFor` and waits for it, holding nothing. (A bot that visits the prerequisite link from a
 * machine without internet waits on its own fetch.) See docs/protocol.md.
 */
describe('@modelcontextprotocol/server-everything: the -32042 error path of trigger-url-elicitation', () => {
  const suite = suiteEnvironment({ name: 'everything-url', extraServers });

  for (const server of ['everything', 'everythinghttp']) {
    it(`${server}: the prerequisite URL, then the tool's own URL request, each answered once: the call completes`, async () => {
      const handle = await startToolCall(suite, 'everything-url', {
        server,
        tool: 'trigger-url-elicitation',
        arguments: { url: 'https://example.test/flow', errorPath: true },
      });
      const [first] = await waitForPending(handle);
      assert.deepEqual([first.kind, first.url], ['authorization', 'https://modelcontextprotocol.io']);
      assert.match(first.id, /^c1\.r1\.url1\./, 'the -32042 form');
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true }] });
      const [second] = await waitForPending(handle);
      assert.deepEqual(
        [second.kind, second.url, second.prompt],
        ['authorization', 'https://example.test/flow', 'Please open the link to complete this action.'],
      );
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: second.id, ok: true }] });
      const result = await handle.result();
      assert.equal(result.isError, false);
      assert.match(result.output, /User completed the URL elicitation flow\.[\s\S]*URL: https:\/\/example\.test\/flow/);
    });
  }

  it('the second request left unanswered is a pending request of a released call (nothing held), not a hung call', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `everything-url-held-${Math.random().toString(36).slice(2)}`,
      // (The arguments differ from the test above: the server keys its one-shot retry marker on them.)
      args: [
        {
          server: 'everything',
          tool: 'trigger-url-elicitation',
          arguments: { url: 'https://example.test/other', errorPath: true },
          elicitation: { holdFor: 500 },
        },
      ],
    });
    const [first] = await waitForPending(handle);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true }] });
    await eventually(async () => (await handle.query(pendingQuery)).some((r) => r.url === 'https://example.test/other'), 'the second request');
    await eventually(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'the call released');
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'waiting for the person');
    await handle.terminate('done');
  });
});
