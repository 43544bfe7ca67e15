import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestEnvironment, decline, nextPending, scriptedServer, type DurableMcpTestEnvironment, type ScriptedServer } from 'durable-mcp/testing';

let t: DurableMcpTestEnvironment;
let diner: ScriptedServer;
beforeAll(async () => {
  diner = await scriptedServer({
    era: 'legacy',
    transport: 'http',
    tools: {
      book_table: async (_args, { ask }) =>
        (await ask({ message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })).action,
    },
  });
  t = await createTestEnvironment({ servers: { diner } });
}, 60_000);
afterAll(() => t?.teardown());

test('a decline reaches the server as decline', async () => {
  const handle = await t.client.workflow.start('mcpToolCall', {
    taskQueue: t.taskQueue,
    workflowId: `decline-${Date.now()}`,
    args: [{ server: 'diner', tool: 'book_table' }],
  });
  const { request } = await nextPending(handle);
  await t.durable.submit(handle.workflowId, { id: request.id, ...decline() });
  expect((await handle.result()).output).toBe('decline');
  expect(diner.answers.map((a) => a.result)).toEqual([{ action: 'decline' }]);
}, 60_000);
