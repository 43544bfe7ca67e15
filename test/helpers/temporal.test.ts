import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { DurableMcpWorker } from '../../src/worker.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { createLocalEnv, fixtureConfig, OneQueryAtATime, startWorker, tempDir, uniqueTaskQueue } from './temporal.js';
import { waitForPending } from './watch.js';

// The no-cache mode of the integration tests (fault suite F5b) relies on this workaround for Temporal Core's
// zero-cache query drop (scripts/upstream/UPSTREAM.md): without it, about one query in three of this load
// goes unanswered.
describe('test client in no-cache mode', () => {
  let env: TestWorkflowEnvironment;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  const taskQueue = uniqueTaskQueue('one-query');

  before(async () => {
    env = await createLocalEnv();
    worker = await startWorker(env, { taskQueue, mcpConfig: fixtureConfig(join(tempDir(), 'fixture.jsonl')), workerOptions: { maxCachedWorkflows: 0 } });
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('with the workflow cache disabled, every one of many concurrent queries to one workflow is answered', async () => {
    assert.ok(
      worker.warnings.some((w) => /maxCachedWorkflows is 0/.test(w)),
      `the worker warns that its cache is off: ${worker.warnings.join('; ')}`,
    );
    const client = new Client({ connection: env.connection, namespace: env.namespace, interceptors: { workflow: [new OneQueryAtATime()] } });
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
