/**
 * What `agentModel` adds to Temporal's `temporalProvider` (docs/agents.md): a workflow's generateText given an abort
 * signal. Through `temporalProvider` the signal reaches the model activity as `{}` (what a provider would hand to
 * `fetch`); through `agentModel` the activity gets no signal. A real worker with AiSdkPlugin and a dev server; the
 * model is the AI SDK's MockLanguageModelV4, answering with what it received.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { MockLanguageModelV4, MockProviderV4 } from 'ai/test';
import { DurableMcpPlugin } from '../../src/worker.js';
import { createLocalEnv, uniqueTaskQueue } from '../helpers/temporal.js';
import { agentWorkflowBundle } from './agent-bundle.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
/** A model that says what abort signal its call carried. */
const probe = new MockLanguageModelV4({
  doGenerate: async (options) => ({
    content: [
      { type: 'text', text: 'abortSignal' in options && options.abortSignal !== undefined ? `signal: ${JSON.stringify(options.abortSignal)}` : 'no signal' },
    ],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  }),
});

describe("agentModel: Temporal's model without the call's abort signal", () => {
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv({ encryption: false });
  });
  after(async () => {
    await env?.teardown();
  });

  it('temporalProvider hands the model activity the signal as {}; agentModel hands it none', async () => {
    const taskQueue = uniqueTaskQueue('model');
    const namespace = env.namespace ?? 'default';
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace,
      taskQueue,
      workflowBundle: await agentWorkflowBundle(),
      plugins: [
        new DurableMcpPlugin({ mcpConfig: { mcpServers: {} }, encryption: false }),
        new AiSdkPlugin({ modelProvider: new MockProviderV4({ languageModels: { probe } }) }),
      ],
    });
    const client = new Client({ connection: env.connection, namespace });
    await worker.runUntil(async () => {
      const run = (through: string) =>
        client.workflow.execute('abortSignalProbe', { taskQueue, workflowId: `probe-${through}-${randomUUID().slice(0, 8)}`, args: [through] });
      assert.equal(await run('temporalProvider'), 'signal: {}');
      assert.equal(await run('agentModel'), 'no signal');
    });
  });
});
