import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { suiteEnvironment } from '../helpers/temporal.js';

for (const kind of ['time-skipping', 'dev-server'] as const) {
  describe(`a tool call without elicitation on the ${kind} server`, () => {
    const suite = suiteEnvironment({ timeSkipping: kind === 'time-skipping', name: 'smoke' });

    it('returns the tool output as the workflow result', async () => {
      const result = await suite.client.workflow.execute(mcpToolCall, {
        taskQueue: suite.taskQueue,
        workflowId: `smoke-${Date.now()}`,
        args: [{ server: 'fx', tool: 'echo', arguments: { text: 'hi' } }],
      });
      assert.deepEqual(result, { output: 'echo: hi', isError: false });
    });
  });
}
