import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { OneQueryAtATime, suiteEnvironment } from './temporal.js';
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
