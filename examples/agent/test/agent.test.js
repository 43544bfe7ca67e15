import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { accept, createTestEnvironment, decline, nextPending } from 'durable-mcp/testing';
import { scriptedProvider } from '../model.js';

const workflowsPath = fileURLToPath(new URL('../workflows.js', import.meta.url));
// The MCP config `npm start` uses: the bank over stdio (`node bank-server.js`), its transfers approved by a person.
const mcpConfig = fileURLToPath(new URL('../mcp.json', import.meta.url));
const start = (t, id, input = {}) =>
  t.client.workflow.start('assistant', { taskQueue: t.taskQueue, workflowId: `${id}-${Date.now()}`, args: [{ prompt: 'Pay bob what I allow', ...input }] });

// One worker with both plugins: durable-mcp's (createTestEnvironment adds it) and the AI SDK's, the scripted model its provider.
// The tests run from the project's folder (npm test), where mcp.json's `node bank-server.js` is.
// Time-skipping: an expiry of a day passes as soon as the workflow only waits for it.
let t;
before(async () => {
  t = await createTestEnvironment({
    timeSkipping: true,
    mcpConfig,
    workflowsPath,
    workerOptions: { plugins: [new AiSdkPlugin({ modelProvider: scriptedProvider() })] },
  });
});
after(() => t?.teardown());

describe('an agent with durable MCP tools', () => {
  it('asks the person for a budget, gets the transfer approved, and the model reads both results', async () => {
    const handle = await start(t, 'approve');
    const asked = await nextPending(handle);
    assert.equal(asked.request.prompt, 'How much may the assistant spend?');
    await t.durable.submit(handle.workflowId, { id: asked.request.id, ...accept({ amount: 40 }) });
    const approval = await nextPending(handle, { seen: [asked.request.id] });
    assert.match(approval.request.prompt, /transfer/);
    await t.durable.submit(handle.workflowId, { id: approval.request.id, ...accept() });
    assert.equal(await handle.result(), 'Done. The bank said: sent 40 to bob');
  });

  it('a declined approval reaches the model as a tool result, and the agent still answers', async () => {
    const handle = await start(t, 'decline');
    const asked = await nextPending(handle);
    await t.durable.submit(handle.workflowId, { id: asked.request.id, ...accept({ amount: 5 }) });
    const approval = await nextPending(handle, { seen: [asked.request.id] });
    await t.durable.submit(handle.workflowId, { id: approval.request.id, ...decline() });
    assert.match(await handle.result(), /^Done\. The bank said: Tool "transfer" of server "bank" did not run: a person .*declined to approve it\.$/);
  });

  it('a question nobody answers expires (time-skipped), and the model reads that too', async () => {
    // The bank asks the old way (an open elicitation): the call lets its session go after holdFor, then only the
    // workflow waits, and the time-skipping server skips the rest of the day.
    const handle = await start(t, 'expire', { expiresIn: '1d', holdFor: '1s' });
    await nextPending(handle);
    // Nobody answers: awaiting the result skips the day.
    assert.equal(await handle.result(), 'Done. The bank said: no budget (cancel)');
  });
});
