import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { mcpToolCall } from '../../src/workflows/index.js';
import { createLocalEnv, createTimeSkippingEnv, fixtureConfig, startWorker, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { join } from 'node:path';

for (const kind of ['time-skipping', 'dev-server'] as const) {
  describe(`a tool call without elicitation on the ${kind} server`, () => {
    let env: TestWorkflowEnvironment;
    before(async () => {
      env = kind === 'time-skipping' ? await createTimeSkippingEnv() : await createLocalEnv();
    });
    after(async () => {
      await env?.teardown();
    });

    it('returns the tool output as the workflow result', async () => {
      const taskQueue = uniqueTaskQueue();
      const w = await startWorker(env, { taskQueue, mcpConfig: fixtureConfig(join(tempDir(), 'log.jsonl')) });
      const result = await w.runUntil(
        env.client.workflow.execute(mcpToolCall, {
          taskQueue,
          workflowId: `smoke-${Date.now()}`,
          args: [{ server: 'fx', tool: 'echo', arguments: { text: 'hi' } }],
        }),
      );
      assert.deepEqual(result, { output: 'echo: hi', isError: false });
    });
  });
}
