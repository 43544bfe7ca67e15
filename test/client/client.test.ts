import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import {
  AnswerRejectedFailure,
  DurableMcpClient,
  FailureTypes,
  isAnswerRejectedFailure,
  isClientError,
  isToolCallFailure,
  ToolCallFailure,
} from '../../src/client/index.js';
import { WORKER_WAIT_MS } from '../../src/client/client.js';
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
      (err: unknown) => isAnswerRejectedFailure(err, FailureTypes.InvalidAnswer) && /field "name"/.test(err.message),
    );
    await assert.rejects(c.accept(handle.workflowId, 'nope', { name: 'x' }), (err: unknown) => isAnswerRejectedFailure(err, FailureTypes.UnknownRequest));
    await assert.rejects(c.pendingDetails('no-such-workflow'), (err: unknown) => isClientError(err, 'UnknownWorkflow'));
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
    await assert.rejects(c.waitForPending('no-such-workflow'), (err: unknown) => isClientError(err, 'UnknownWorkflow'));
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
    // timeout. The client's default wait must outlast it, or the answer fails with a NoWorker ClientError.
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
        isClientError(err, 'SearchAttributeNotRegistered') &&
        /temporal operator search-attribute create .*--name DurableMcpAwaitingInput --type Bool/.test(err.message),
    );
    await c.cancelRequest(handle.workflowId, p.request.id);
    assert.equal((await c.result(handle.workflowId)).output, 'cancelled');
    const history = await handle.fetchHistory();
    assert.ok(!history.events?.some((e) => e.workflowTaskFailedEventAttributes), 'no workflow task failure');
  });
});

describe('client errors: one class per plane, with the failure type (never read from message text)', () => {
  const suite = suiteEnvironment({ name: 'client-failures' });

  it("a failed call throws a ToolCallFailure, the workflow's Temporal failure with its type, server and tool", async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue: suite.taskQueue });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ server: 'nosuch', tool: 'x' }, FailureTypes.UnknownServer],
      [{ server: 'fx', tool: 'no_such_tool' }, FailureTypes.UnknownTool],
      [{ server: 'fx', tool: 'echo', heartbeatTimeout: 'soon' }, FailureTypes.InvalidInput],
    ];
    for (const [input, type] of cases) {
      const handle = await suite.env.client.workflow.start('mcpToolCall', {
        taskQueue: suite.taskQueue,
        workflowId: `client-fail-${type}-${Date.now()}`,
        args: [input],
      });
      await assert.rejects(c.result(handle.workflowId), (err: unknown) => {
        assert.ok(isToolCallFailure(err, type), `${type}: ${String(err)}`);
        assert.ok(err instanceof ApplicationFailure, 'a Temporal failure');
        assert.equal(err.nonRetryable, true, "the workflow failure's own flag");
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

  it('a second answer to a request throws an AnswerRejectedFailure of type AlreadyResolved', async () => {
    const c = new DurableMcpClient(suite.env.client, { taskQueue: suite.taskQueue });
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_twice' });
    const [first] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    await c.accept(handle.workflowId, first.id, { first: 'Ada' });
    await c.waitForPending(handle.workflowId, { seen: [first.id], timeoutMs: 120_000 });
    await assert.rejects(
      c.decline(handle.workflowId, first.id),
      (err: unknown) => isAnswerRejectedFailure(err) && err.type === FailureTypes.AlreadyResolved && err.requestId === first.id,
    );
    const [second] = await c.waitForPending(handle.workflowId, { seen: [first.id], timeoutMs: 120_000 });
    await c.decline(handle.workflowId, second.id);
    await c.result(handle.workflowId);
    await assert.rejects(c.decline(handle.workflowId, second.id), (err: unknown) => isClientError(err, 'WorkflowClosed') && err.status === 'COMPLETED');
  });

  it("builds an answer's refusal from the update's failure, for every answer failure type and one this version does not know", () => {
    const answerTypes = Object.keys(FAILURES).filter((t) => FAILURES[t as keyof typeof FAILURES].plane === 'answer');
    for (const type of [...answerTypes, 'SomethingNew']) {
      const update = new Error('update failed', { cause: ApplicationFailure.nonRetryable('why', type) });
      const err = AnswerRejectedFailure.of(update, 'wf', 'r1');
      assert.ok(isAnswerRejectedFailure(err, type), type);
      assert.ok(!isAnswerRejectedFailure(err, type === 'Expired' ? 'InvalidAnswer' : 'Expired'), `${type}: the guard reads the type`);
      assert.ok(err instanceof ApplicationFailure && err.cause === update);
      assert.deepEqual([err.type, err.reason, err.workflowId, err.requestId], [type, 'why', 'wf', 'r1']);
      assert.match(
        err.message,
        ['UnknownRequest', 'AlreadyResolved', 'Expired'].includes(type) ? /^workflow "wf": why$/ : /^workflow "wf" refused the answer: why$/,
      );
      assert.ok(!isToolCallFailure(err) && !isClientError(err));
    }
    const cancelled = new ToolCallFailure({ workflowId: 'wf', type: 'Cancelled', message: 'the workflow was cancelled' });
    assert.ok(isToolCallFailure(cancelled, 'Cancelled') && cancelled.toJSON().error === 'Cancelled');
    for (const type of Object.keys(FAILURES)) assert.ok(isFailureType(type));
  });
});
