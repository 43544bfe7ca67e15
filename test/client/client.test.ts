import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AnswerRejectedError,
  AnswerTooLargeError,
  DurableMcpClient,
  InvalidAnswerError,
  InvalidInputFailure,
  NoSuchPendingRequestError,
  RequestAlreadyResolvedError,
  RequestExpiredError,
  SearchAttributeNotRegisteredError,
  ToolCallFailedError,
  UnknownServerFailure,
  UnknownToolFailure,
  UnknownWorkflowError,
  WorkflowClosedError,
} from '../../src/client/index.js';
import { WORKER_WAIT_MS } from '../../src/client/client.js';
import { answerRejection } from '../../src/client/errors.js';
import { FAILURES, isFailureType } from '../../src/contract/failures.js';
import { eventually, suiteEnvironment, testEnvironment } from '../helpers/temporal.js';
import { waitForPendingDetails } from '../helpers/watch.js';

describe('client helpers, with the search attribute registered', () => {
  const suite = suiteEnvironment({ name: 'client', searchAttributes: true });
  const taskQueue = suite.taskQueue;

  it('starts a tool call, lists it among the workflows awaiting input while it waits, and no longer once answered', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue });
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    const listed = await eventually(
      async () => (await c.listAwaitingInput()).find((w) => w.workflowId === handle.workflowId && w.pending.length === 1),
      'the call to be listed',
    );
    assert.equal(listed.pending[0].context.tool, 'ask_name');
    const requestId = listed.pending[0].request.id;

    await assert.rejects(
      c.accept(handle.workflowId, requestId, { name: 42 }),
      (err: unknown) => err instanceof InvalidAnswerError && /field "name"/.test(err.message),
    );
    await assert.rejects(c.accept(handle.workflowId, 'nope', { name: 'x' }), NoSuchPendingRequestError);
    await assert.rejects(c.pendingDetails('no-such-workflow'), UnknownWorkflowError);
    assert.deepEqual(await c.accept(handle.workflowId, requestId, { name: 'Ada' }), { id: requestId, action: 'accept' });
    assert.deepEqual(await c.result(handle.workflowId), { output: 'hello Ada', isError: false });
    await eventually(async () => !(await c.listAwaitingInput()).some((w) => w.workflowId === handle.workflowId), 'the call to leave the list');
  });

  it('waitForPending hands a bot the request as soon as it is pending, with no polling', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue });
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    const [request] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    assert.equal(request.prompt, 'What is your name?');
    await assert.rejects(c.waitForPending(handle.workflowId, { timeoutMs: 0 }), /field "timeoutMs"/);
    await assert.rejects(c.waitForPending('no-such-workflow'), UnknownWorkflowError);
    await c.accept(handle.workflowId, request.id, { name: 'Ada' });
    assert.equal((await c.result(handle.workflowId)).output, 'hello Ada');
  });

  it('startToolCallAndWaitForPending starts a call and returns its first request in one request; a call that asks nothing returns none', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue });
    const { handle, pending } = await c.startToolCallAndWaitForPending({ server: 'fx', tool: 'ask_name' }, { timeoutMs: 120_000 });
    assert.deepEqual(
      pending.map((r) => r.prompt),
      ['What is your name?'],
    );
    await c.accept(handle.workflowId, pending[0].id, { name: 'Ada' });
    assert.equal((await c.result(handle.workflowId)).output, 'hello Ada');

    const quiet = await c.startToolCallAndWaitForPending({ server: 'fx', tool: 'echo', arguments: { text: 'hi' } }, { timeoutMs: 120_000 });
    assert.deepEqual(quiet.pending, []);
    assert.equal((await c.result(quiet.handle.workflowId)).output, 'echo: hi');
  });

  it('lists a workflow started without the helper too: the worker sets the search attribute', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue });
    const handle = await suite.env.client.workflow.start('mcpToolCall', {
      taskQueue,
      workflowId: `plain-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name' }],
    });
    const listed = await eventually(
      async () => (await c.listAwaitingInput()).find((w) => w.workflowId === handle.workflowId && w.pending.length === 1),
      'the plain call to be listed',
    );
    await c.decline(handle.workflowId, listed.pending[0].request.id);
    assert.equal((await c.result(handle.workflowId)).output, 'declined');
  });

  it('waits for a worker longer than a workflow task timeout, so an answer right after a worker restart is taken', async () => {
    // A worker that stops can be handed a workflow task by its last sticky poll (its held call, released at
    // shutdown, completes and schedules one): Temporal retries that task elsewhere only after the workflow task
    // timeout. The client's default wait must outlast it, or the answer fails with NoWorkerError.
    const c = new DurableMcpClient(suite.env.client, { taskQueue });
    const handle = await c.startToolCall({ server: 'fx', tool: 'echo', arguments: { text: 'hi' } });
    const timeout = (await handle.describe()).raw.executionConfig?.defaultWorkflowTaskTimeout;
    const taskTimeoutMs = Number(timeout?.seconds ?? 0) * 1000 + Math.floor((timeout?.nanos ?? 0) / 1e6);
    assert.ok(taskTimeoutMs > 0, 'the server reports the workflow task timeout');
    assert.ok(WORKER_WAIT_MS > taskTimeoutMs, `the client waits ${WORKER_WAIT_MS} ms for a worker, the workflow task timeout is ${taskTimeoutMs} ms`);
    assert.equal((await c.result(handle.workflowId)).output, 'echo: hi');
  });
});

describe('client helpers, without the search attribute', () => {
  it('the worker still works, and listing every awaiting workflow says how to register the attribute', async () => {
    await using t = await testEnvironment({ name: 'client-nosa' });
    const c = t.durable;
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    const [p] = await waitForPendingDetails(c, handle.workflowId);
    await assert.rejects(
      c.listAwaitingInput(),
      (err: unknown) =>
        err instanceof SearchAttributeNotRegisteredError &&
        /temporal operator search-attribute create .*--name DurableMcpAwaitingInput --type Bool/.test(err.message),
    );
    await c.cancelRequest(handle.workflowId, p.request.id);
    assert.equal((await c.result(handle.workflowId)).output, 'cancelled');
    const history = await handle.fetchHistory();
    assert.ok(!history.events?.some((e) => e.workflowTaskFailedEventAttributes), 'no workflow task failure');
  });
});

describe('client error classes, chosen by failure type (never by message text)', () => {
  const suite = suiteEnvironment({ name: 'client-failures' });

  it('a failed call throws the class of its type, with the type, the server and the tool', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue: suite.taskQueue });
    const cases: Array<[Record<string, unknown>, new (...a: any[]) => ToolCallFailedError, string]> = [
      [{ server: 'nosuch', tool: 'x' }, UnknownServerFailure, 'UnknownServer'],
      [{ server: 'fx', tool: 'no_such_tool' }, UnknownToolFailure, 'UnknownTool'],
      [{ server: 'fx', tool: 'echo', heartbeatTimeout: 'soon' }, InvalidInputFailure, 'InvalidInput'],
    ];
    for (const [input, Cls, type] of cases) {
      const handle = await suite.env.client.workflow.start('mcpToolCall', {
        taskQueue: suite.taskQueue,
        workflowId: `client-fail-${type}-${Date.now()}`,
        args: [input],
      });
      await assert.rejects(c.result(handle.workflowId), (err: unknown) => {
        assert.ok(err instanceof Cls, `${type}: ${String(err)}`);
        assert.ok(err instanceof ToolCallFailedError);
        assert.equal(err.type, type);
        assert.equal(err.server, input.server);
        assert.equal(err.tool, input.tool);
        assert.equal(err.toJSON().error, type);
        return true;
      });
    }
    await assert.rejects(
      c.startToolCall({ server: 'fx', tool: 'echo', elicitation: { expiresIn: '4 parsecs' as never } }),
      /field "elicitation.expiresIn" must be a Temporal Duration.*got "4 parsecs"/,
    );
  });

  it('a second answer to a request throws RequestAlreadyResolvedError (type AlreadyResolved)', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue: suite.taskQueue });
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_twice' });
    const [first] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    await c.accept(handle.workflowId, first.id, { first: 'Ada' });
    await c.waitForPending(handle.workflowId, { seen: [first.id], timeoutMs: 120_000 });
    await assert.rejects(
      c.decline(handle.workflowId, first.id),
      (err: unknown) => err instanceof RequestAlreadyResolvedError && err.type === 'AlreadyResolved' && err.requestId === first.id,
    );
    const [second] = await c.waitForPending(handle.workflowId, { seen: [first.id], timeoutMs: 120_000 });
    await c.decline(handle.workflowId, second.id);
    await c.result(handle.workflowId);
    await assert.rejects(c.decline(handle.workflowId, second.id), WorkflowClosedError);
  });

  it('maps every answer failure type to its class', () => {
    const expected: Record<string, new (...a: any[]) => AnswerRejectedError> = {
      UnknownRequest: NoSuchPendingRequestError,
      AlreadyResolved: RequestAlreadyResolvedError,
      Expired: RequestExpiredError,
      InvalidAnswer: InvalidAnswerError,
      AnswerTooLarge: AnswerTooLargeError,
    };
    for (const [type, Cls] of Object.entries(expected)) {
      const err = answerRejection('wf', 'r1', type, 'why');
      assert.ok(err instanceof Cls, type);
      assert.equal(err.type, type);
      assert.equal(FAILURES[type as keyof typeof FAILURES].plane, 'answer');
    }
    const unknown = answerRejection('wf', 'r1', 'SomethingNew', 'why');
    assert.equal(unknown.constructor, AnswerRejectedError, 'a type this version does not know keeps the base class');
    assert.equal(unknown.type, 'SomethingNew');
    for (const type of Object.keys(FAILURES)) assert.ok(isFailureType(type));
  });
});
