import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ENCRYPTED_ENCODING, EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import {
  accept,
  answerWith,
  createTestEnvironment,
  decline,
  nextPending,
  replayHistories,
  scriptedServer,
  type DurableMcpTestEnvironment,
  type ProtocolEra,
  type ScriptedServer,
  type ScriptedTransport,
} from '../../src/testing/index.js';
import { childPids } from '../../scripts/processes.js';

/** What a person reads of a tool result (a modern-era server adds its server info under metadata). */
const seen = (r: { output: string; isError: boolean }) => ({ output: r.output, isError: r.isError });
const userWorkflows = fileURLToPath(new URL('../fixtures/user-workflows.js', import.meta.url));
const who = { type: 'object', properties: { name: { type: 'string' }, guests: { type: 'integer', minimum: 1 } }, required: ['name', 'guests'] };

/** The restaurant tools of the user's workflow: `find` answers at once, `book` asks who is coming. */
function restaurant(era: ProtocolEra, transport: ScriptedTransport) {
  return scriptedServer({
    era,
    transport,
    tools: {
      find: async ({ restaurant }) => `table 7 at ${restaurant}`,
      book: async ({ table }, { ask }) => {
        const r = await ask({ message: `Who is coming to ${table}?`, requestedSchema: who });
        if (r.action !== 'accept') return `not booked (${r.action})`;
        return `booked ${table} for ${r.content?.guests} under ${r.content?.name}`;
      },
      broken: async () => {
        throw new Error('the kitchen is on fire');
      },
    },
  });
}

const cases: Array<[ProtocolEra, ScriptedTransport]> = [
  ['legacy', 'stdio'],
  ['legacy', 'http'],
  ['modern', 'stdio'],
  ['modern', 'http'],
];

for (const [era, transport] of cases) {
  describe(`durable-mcp/testing with a scripted ${era}-era server over ${transport}`, () => {
    // One environment (and server) for the tests of this era and transport; each test counts from where it starts.
    let t: DurableMcpTestEnvironment;
    let server: ScriptedServer;
    before(async () => {
      server = await restaurant(era, transport);
      t = await createTestEnvironment({ servers: { diner: server }, workflowsPath: userWorkflows });
    });
    after(() => t?.teardown());

    it('answerWith accepts the one request of a user workflow, and the server records the calls and exactly that answer', async () => {
      const answersBefore = server.answers.length;
      const callsBefore = server.calls.length;
      const handle = await t.client.workflow.start('bookDinner', {
        taskQueue: t.taskQueue,
        workflowId: `kit-accept-${era}-${transport}-${Date.now()}`,
        args: [{ server: 'diner', restaurant: 'Chez Temporal' }],
      });
      const answerer = answerWith(handle, (request, context) => {
        assert.equal(request.kind, 'input');
        assert.equal(request.prompt, 'Who is coming to table 7 at Chez Temporal?');
        assert.deepEqual(context && { server: context.server, tool: context.tool }, { server: 'diner', tool: 'book' });
        return accept({ name: 'Ada', guests: 2 });
      });
      assert.equal(await handle.result(), 'booked table 7 at Chez Temporal for 2 under Ada');
      await answerer.stop();
      assert.equal(answerer.answered.length, 1, 'the person was asked once');
      assert.deepEqual(
        server.answers.slice(answersBefore).map((a) => a.result),
        [{ action: 'accept', content: { name: 'Ada', guests: 2 } }],
      );
      assert.deepEqual(
        server.calls
          .slice(callsBefore)
          .filter((c) => 'result' in c.outcome)
          .map((c) => c.tool),
        ['find', 'book'],
      );
    });

    it('nextPending hands over the request step by step; a decline reaches the server as decline', async () => {
      const answersBefore = server.answers.length;
      const handle = await t.client.workflow.start(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `kit-decline-${era}-${transport}-${Date.now()}`,
        args: [{ server: 'diner', tool: 'book', arguments: { table: 'table 9' } }],
      });
      const { request, context } = await nextPending(handle, { timeout: '30s' });
      assert.equal(context?.tool, 'book');
      await t.durable.submit(handle.workflowId, { id: request.id, ...decline() } as never);
      assert.deepEqual(seen(await handle.result()), { output: 'not booked (decline)', isError: false });
      assert.deepEqual(
        server.answers.slice(answersBefore).map((a) => a.result),
        [{ action: 'decline' }],
      );
    });

    it("a tool that throws is the call's error result, with its message", async () => {
      const result = await t.client.workflow.execute(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `kit-broken-${era}-${transport}-${Date.now()}`,
        args: [{ server: 'diner', tool: 'broken' }],
      });
      assert.deepEqual(seen(result), { output: 'the kitchen is on fire', isError: true });
    });
  });
}

describe('durable-mcp/testing: the environment', () => {
  it('an unanswered request expires into cancel on the time-skipping server, with no real wait', async () => {
    const server = await restaurant('legacy', 'stdio');
    await using t = await createTestEnvironment({ timeSkipping: true, servers: { diner: server } });
    const handle = await t.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `kit-expiry-${Date.now()}`,
      args: [{ server: 'diner', tool: 'book', arguments: { table: 'table 3' }, elicitation: { expiresIn: 24 * 60 * 60 * 1000, holdFor: 500 } }],
    });
    const started = await t.env.currentTimeMs();
    assert.deepEqual(seen(await handle.result()), { output: 'not booked (cancel)', isError: false });
    assert.ok((await t.env.currentTimeMs()) - started >= 24 * 60 * 60 * 1000 - 1000, 'a day of workflow time was skipped');
    assert.deepEqual(
      server.answers.map((a) => a.result),
      [{ action: 'cancel' }],
    );
  });

  it('startWorker: false starts no worker (`worker` says so) until startWorker(); the time-skipping server still runs the call then', async () => {
    const server = await restaurant('legacy', 'stdio');
    await using t = await createTestEnvironment({ timeSkipping: true, servers: { diner: server }, startWorker: false });
    assert.throws(() => t.worker, /no running worker \(startWorker: false, or stopWorker\(\) was called/);
    await t.startWorker();
    const result = await t.client.workflow.execute(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `kit-later-${Date.now()}`,
      args: [{ server: 'diner', tool: 'find', arguments: { restaurant: 'x' } }],
    });
    assert.equal(result.isError, false, JSON.stringify(result));
  });

  it('teardown leaves no process behind: the Temporal server, the worker and every MCP server process are gone', async () => {
    const before = childPids().length;
    const server = await restaurant('legacy', 'stdio');
    const t = await createTestEnvironment({ servers: { diner: server } });
    await t.client.workflow.execute(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `kit-teardown-${Date.now()}`,
      args: [{ server: 'diner', tool: 'find', arguments: { restaurant: 'x' } }],
    });
    assert.ok(childPids().length >= before + 2, 'the dev server and the stdio-socket bridge of the MCP session run as children of this process');
    await t.teardown();
    assert.equal(childPids().length, before, 'no child process left');
  });

  describe("one environment for a user's workflows", () => {
    let t: DurableMcpTestEnvironment;
    let server: ScriptedServer;
    before(async () => {
      server = await restaurant('legacy', 'stdio');
      t = await createTestEnvironment({
        servers: {
          diner: server,
          failing: await scriptedServer({
            era: 'legacy',
            tools: {
              find: async () => {
                throw new Error('no such restaurant');
              },
              book: async () => 'never',
            },
          }),
        },
        workflowsPath: userWorkflows,
      });
    });
    after(() => t?.teardown());

    it('a pending request survives a worker restart, and the person is asked once', async () => {
      const answersBefore = server.answers.length;
      const handle = await t.client.workflow.start(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `kit-restart-${Date.now()}`,
        args: [{ server: 'diner', tool: 'book', arguments: { table: 'table 1' } }],
      });
      const first = await nextPending(handle);
      await t.restartWorker();
      const again = await nextPending(handle, { seen: [] });
      assert.equal(again.request.id, first.request.id, 'the same request is pending after the restart');
      await t.durable.accept(handle.workflowId, first.request.id, { name: 'Grace', guests: 3 });
      assert.deepEqual(seen(await handle.result()), { output: 'booked table 1 for 3 under Grace', isError: false });
      assert.equal(server.answers.length, answersBefore + 1);
    });

    it('replayHistories replays a recorded history, and names one that does not match the code', async () => {
      const handle = await t.client.workflow.start('bookDinner', {
        taskQueue: t.taskQueue,
        workflowId: `kit-replay-${Date.now()}`,
        args: [{ server: 'diner', restaurant: 'Noma' }],
      });
      const answerer = answerWith(handle, () => accept({ name: 'Ada', guests: 4 }));
      await handle.result();
      await answerer.stop();
      const history = await handle.fetchHistory();
      const ok = await replayHistories(userWorkflows, [{ workflowId: handle.workflowId, history }]);
      assert.deepEqual(
        ok.map((o) => [o.workflowId, o.error]),
        [[handle.workflowId, undefined]],
      );
      // The same history against a workflow type that does something else: nondeterminism, named.
      const tampered = JSON.parse(historyToJSON(history));
      const started = tampered.events.find((e: any) => e.workflowExecutionStartedEventAttributes);
      started.workflowExecutionStartedEventAttributes.workflowType.name = 'mcpToolCall';
      await assert.rejects(replayHistories(userWorkflows, [{ workflowId: 'tampered', history: tampered }]), /tampered/);
    });

    it("a workflow failure of the user's workflow carries the failing tool's message", async () => {
      const err = await t.client.workflow
        .execute('bookDinner', { taskQueue: t.taskQueue, workflowId: `kit-fail-${Date.now()}`, args: [{ server: 'failing', restaurant: 'Nowhere' }] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof WorkflowFailedError);
      assert.match(String((err.cause as Error)?.message), /find failed: no such restaurant/);
    });
  });
});

describe('durable-mcp/testing with encryption', () => {
  it('createTestEnvironment({ encryption }): the kit encrypts, answers and reads as usual, and the raw history holds no answer', async () => {
    const codec = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('kit'), 'test'));
    const server = await restaurant('modern', 'stdio');
    const t = await createTestEnvironment({ servers: { diner: server }, workflowsPath: userWorkflows, encryption: codec });
    try {
      assert.equal(t.encryption, codec);
      const secret = `Ada-${Date.now()}`;
      const handle = await t.client.workflow.start('bookDinner', {
        taskQueue: t.taskQueue,
        workflowId: `kit-encrypted-${Date.now()}`,
        args: [{ server: 'diner', restaurant: 'Chez Temporal' }],
      });
      const { request } = await nextPending(handle);
      await t.durable.submit(handle.workflowId, { id: request.id, ...accept({ name: secret, guests: 2 }) });
      assert.equal(await handle.result(), `booked table 7 at Chez Temporal for 2 under ${secret}`);
      const plain = new Client({ connection: t.env.connection, namespace: t.env.namespace ?? 'default' });
      const raw = JSON.stringify(historyToJSON(await plain.workflow.getHandle(handle.workflowId).fetchHistory()));
      assert.ok(!raw.includes(secret) && !raw.includes(Buffer.from(secret).toString('base64')), 'no answer in the raw history');
      assert.ok(raw.includes(Buffer.from(ENCRYPTED_ENCODING).toString('base64')), 'encrypted payloads');
    } finally {
      await t.teardown();
      await server.close();
    }
  });
});
