/**
 * An answer Temporal rejects on a worker's behalf because the worker completed the workflow task that carried it without
 * processing it (`UnprocessedUpdate`): the workflow never saw it, so the client sends it again. Seen in CI right after a
 * worker's SIGKILL and restart (test/nexus/languages, issue 44); here a worker that ignores updates, as one whose SDK
 * knows none does, takes the answer's workflow task on a real dev server, then durable-mcp's worker comes back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DurableMcpClient } from '../../src/client/index.js';
import { isUnprocessedUpdate } from '../../src/client/workers.js';
import { eventually, testEnvironment, type TestEnv } from '../helpers/temporal.js';
import { ignoreTheNextUpdate } from '../helpers/unprocessed.js';

describe('an answer a worker left unprocessed', () => {
  let t: TestEnv;
  before(async () => {
    t = await testEnvironment({ name: 'unprocessed' });
  });
  after(async () => {
    await t?.teardown();
  });

  it('is sent again: Temporal rejected it as UnprocessedUpdate, the next worker applies it once, the call ends with it', async () => {
    const c = new DurableMcpClient(t.client, { taskQueue: t.taskQueue });
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name', elicitation: { holdFor: 1 } });
    const [request] = await c.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
    // The call released (its activity done) and no workflow task due: the answer's task is the next one.
    const execution = { workflowId: handle.workflowId };
    await eventually(async () => {
      const d = await t.client.workflowService.describeWorkflowExecution({ namespace: t.namespace, execution });
      return !d.pendingActivities?.length && !d.pendingWorkflowTask;
    }, 'the call to be released and its workflow quiet');
    await t.stopWorker();

    const ignored = ignoreTheNextUpdate(t.client, t.taskQueue);
    const answered = c.accept(handle.workflowId, request!.id, { name: 'Ada' }, { timeoutMs: 60_000 }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    assert.equal(await ignored, 1, 'the ignoring worker took the answer');
    await t.startWorker();

    assert.deepEqual(await answered, { result: { id: request!.id, action: 'accept' } });
    assert.deepEqual(await c.result(handle.workflowId), { output: 'hello Ada', isError: false });
    const history = await t.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'submitAnswer');
    assert.equal(accepted.length, 1, 'the answer was applied once');
  });

  it('isUnprocessedUpdate names only that rejection', () => {
    assert.equal(isUnprocessedUpdate(new Error('UnprocessedUpdate')), false);
    assert.equal(isUnprocessedUpdate(undefined), false);
  });
});
