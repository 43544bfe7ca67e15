import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { createLocalEnv, NO_CACHE_TASK_TIMEOUT, OneQueryAtATime, suiteEnvironment } from './temporal.js';
import { waitForPending } from './watch.js';

// The no-cache mode of the integration tests (fault suite F5b) relies on this workaround for Temporal Core's
// zero-cache query drop (scripts/upstream/UPSTREAM.md): without it, about one query in three of this load
// goes unanswered.
describe('test client in no-cache mode', () => {
  const suite = suiteEnvironment({ name: 'one-query', workerOptions: { maxCachedWorkflows: 0 } });

  it('with the workflow cache disabled, every one of many concurrent queries to one workflow is answered', async () => {
    const { env, taskQueue, worker } = suite;
    assert.ok(
      worker.warnings.some((w) => /maxCachedWorkflows is 0/.test(w)),
      `the worker warns that its cache is off: ${worker.warnings.join('; ')}`,
    );
    const client = new Client({ connection: env.connection, namespace: suite.namespace, interceptors: { workflow: [new OneQueryAtATime()] } });
    const handle = client.workflow.getHandle(
      (await env.client.workflow.start(mcpToolCall, { taskQueue, workflowId: `one-query-${Date.now()}`, args: [{ server: 'fx', tool: 'ask_name' }] }))
        .workflowId,
    );
    const [request] = await waitForPending(handle);
    const outcomes: string[] = [];
    for (let round = 0; round < 8; round++) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          handle.query(pendingQuery).then(
            (p) => p.map((r) => r.id).join(','),
            (err: Error) => `unanswered: ${err.message}`,
          ),
        ),
      );
      outcomes.push(...answers);
    }
    assert.deepEqual(
      outcomes,
      outcomes.map(() => request.id),
      'each of the 32 queries answered with the pending request',
    );
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
    assert.deepEqual(await handle.result(), { output: 'hello Ada', isError: false });
  });
});

describe('dev server in no-cache mode', () => {
  it('gives a workflow task 3 s instead of 10, so a task Temporal Core drops costs 3 s', { timeout: 60_000 }, async () => {
    const describeTaskTimeout = async (noCache: boolean) => {
      const before = process.env.DURABLE_MCP_TEST_NO_CACHE;
      if (noCache) process.env.DURABLE_MCP_TEST_NO_CACHE = '1';
      else delete process.env.DURABLE_MCP_TEST_NO_CACHE;
      const env = await createLocalEnv({ encryption: false }).finally(() => {
        if (before === undefined) delete process.env.DURABLE_MCP_TEST_NO_CACHE;
        else process.env.DURABLE_MCP_TEST_NO_CACHE = before;
      });
      try {
        // No worker: the start alone shows the timeout the server gave the run.
        const handle = await env.client.workflow.start('noSuchWorkflow', { taskQueue: 'nobody', workflowId: `task-timeout-${Date.now()}` });
        return (await handle.describe()).raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds?.toString();
      } finally {
        await env.teardown();
      }
    };
    assert.equal(NO_CACHE_TASK_TIMEOUT, '3s');
    assert.equal(await describeTaskTimeout(true), '3', 'no-cache mode');
    assert.equal(await describeTaskTimeout(false), '10', "the server's own default otherwise");
  });
});
