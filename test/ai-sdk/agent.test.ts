/**
 * Agents (docs/agents.md): `mcpAgent` in a user's worker with `DurableMcpPlugin` beside `@temporalio/ai-sdk`'s
 * `AiSdkPlugin` in one `Worker.create`, a real dev server, the fixture MCP server over stdio, and the AI SDK's scripted
 * model (`MockLanguageModelV4` as the plugin's model provider). A tool that asks a person: the request is pending in
 * the agent's workflow, answered through DurableMcpClient, and the model reads the answer in the tool result. A
 * declined approval reaches the model as a tool result and the agent goes on to its final text. A long agent continues
 * as new carrying its conversation.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { CancelledFailure, Client, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { McpAgentInput, McpAgentResult } from '../../src/ai-sdk/index.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { DurableMcpPlugin } from '../../src/worker.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { cli } from '../helpers/cli.js';
import { recordHistory } from '../helpers/history.js';
import { spawnNode } from '../../scripts/processes.js';
import { createLocalEnv, eventually, fixtureConfig, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { agentWorkflowBundle, agentWorkflowBundleFile } from './agent-bundle.js';
import { scriptedModel, type ScriptStep } from './scripted-model.js';

describe('mcpAgent: an AI SDK agent whose tools are durable MCP tools', () => {
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: false });
  });
  after(async () => {
    await env?.teardown();
  });

  /** A worker with both plugins running `body`, the scripted model answering its model calls. */
  async function withAgentWorker<T>(
    script: ScriptStep[] | ((n: number) => ScriptStep),
    body: (ctx: { client: Client; durable: DurableMcpClient; taskQueue: string; seen: string[][]; logPath: string }) => Promise<T>,
  ): Promise<T> {
    const taskQueue = uniqueTaskQueue('agent');
    const namespace = env.namespace ?? 'default';
    const scripted = scriptedModel(script);
    const logPath = join(tempDir(), 'log.jsonl');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace,
      taskQueue,
      // One bundle for the file's workers (./agent-bundle.ts): what each would bundle at start from ./agent-workflows.js.
      workflowBundle: await agentWorkflowBundle(),
      plugins: [new DurableMcpPlugin({ mcpConfig: fixtureConfig(logPath), encryption: false }), new AiSdkPlugin({ modelProvider: scripted.provider() })],
    });
    const client = new Client({ connection: env.connection, namespace });
    const durable = new DurableMcpClient(client, { taskQueue });
    return worker.runUntil(body({ client, durable, taskQueue, seen: scripted.seen, logPath }));
  }

  function start(client: Client, taskQueue: string, input: McpAgentInput) {
    return client.workflow.start('mcpAgent', { taskQueue, workflowId: `agent-${randomUUID().slice(0, 8)}`, args: [input] });
  }

  it('asks a person through a tool, and the model gets the answer in the tool result', async () => {
    const script: ScriptStep[] = [{ tool: 'fx_ask_name' }, { text: (results) => `The tool said: ${results.join(' | ')}` }];
    await withAgentWorker(script, async ({ client, durable, taskQueue, seen }) => {
      const handle = await start(client, taskQueue, { prompt: 'Greet the guest', servers: ['fx'], model: 'scripted', tools: ['fx_ask_name', 'fx_echo'] });
      const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
      assert.equal(request?.kind, 'input');
      assert.equal(request?.prompt, 'What is your name?');
      assert.equal((await durable.submit(handle.workflowId, { id: request!.id, ok: true, data: { name: 'Ada' } }, { by: 'ada@example.com' })).action, 'accept');
      const result = (await handle.result()) as McpAgentResult;
      assert.equal(result.text, 'The tool said: hello Ada');
      // Who answered what: the step's tool result names the person and when, never the answer's data.
      const [answered] = result.toolCalls[0]!.result.metadata!.answers as Array<Record<string, unknown>>;
      assert.deepEqual(
        { ...answered, at: typeof answered!.at },
        {
          id: request!.id,
          action: 'accept',
          by: 'ada@example.com',
          // A client's answer naming no source: the worker knows the person only by the client's word (docs/people.md).
          assurance: 'claimed',
          at: 'string',
        },
      );
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.steps, 2);
      assert.deepEqual(
        result.toolCalls.map((c) => [c.name, c.server, c.tool, c.outcome, c.result.output]),
        [['fx_ask_name', 'fx', 'ask_name', 'ok', 'hello Ada']],
      );
      // The model saw the answer in the tool result (its second call).
      assert.deepEqual(seen.at(-1), ['hello Ada']);
      // Replayed with the agent's bundle by test/workflows/replay.test.ts (recorded without a codec).
      await recordHistory(handle, 'agent-ask-name', env.address);
    });
  });

  it('a declined approval reaches the model as a tool result, and the agent goes on to its final text', async () => {
    const script: ScriptStep[] = [{ tool: 'fx_echo', input: { text: 'launch' } }, { text: (results) => `I could not: ${results.join(' | ')}` }];
    await withAgentWorker(script, async ({ client, durable, taskQueue, seen }) => {
      const handle = await start(client, taskQueue, {
        prompt: 'Echo launch',
        servers: ['fx'],
        model: 'scripted',
        tools: ['fx_echo'],
        needsApproval: ['fx_echo'],
      });
      const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
      assert.match(request!.prompt, /echo/);
      await durable.submit(handle.workflowId, { id: request!.id, ok: false, reason: 'declined' }, { by: 'alice' });
      const result = (await handle.result()) as McpAgentResult;
      assert.match(result.text, /^I could not: error: Tool "echo" of server "fx" did not run: a person \(alice\) declined to approve it\.$/);
      assert.equal(result.toolCalls[0]?.outcome, 'not-approved');
      assert.equal(result.toolCalls[0]?.result.metadata?.approval, 'declined');
      assert.equal(result.toolCalls[0]?.result.metadata?.answeredBy, 'alice');
      assert.match(seen.at(-1)![0]!, /declined/);
    });
  });

  it('a key the tool does not declare, proposed by the model, is refused before anyone is asked: the model reads why; the tool never ran', async () => {
    const proposed = { to: 'bob', amount: 5, cc: 'mallory@evil.example' };
    const script: ScriptStep[] = [{ tool: 'fx_transfer', input: proposed }, { text: (results) => `Result: ${results.join(' | ')}` }];
    await withAgentWorker(script, async ({ client, taskQueue, logPath }) => {
      const handle = await start(client, taskQueue, {
        prompt: 'Pay bob',
        servers: ['fx'],
        model: 'scripted',
        tools: ['fx_transfer'],
        needsApproval: ['fx_transfer'],
      });
      const result = (await handle.result()) as McpAgentResult;
      assert.match(result.text, /^Result: error: Tool "fx_transfer" could not run: InvalidInput: .*field "cc" is not an argument of the tool/);
      assert.match(result.text, /nobody was asked and the tool did not run/);
      // The agent finished with nobody answering anything: an approval asked would have waited for a person.
      assert.deepEqual(await handle.query(pendingQuery), [], 'nobody is asked');
      assert.equal(result.toolCalls[0]?.result.metadata?.approval, undefined, 'no approval was ever decided');
      assert.equal(readFixtureLog(logPath).filter((e) => e.event === 'side_effect' && e.tool === 'transfer').length, 0, 'transfer never ran');
    });
  });

  it('an approval nobody answers expires, and the model reads that as the tool result', async () => {
    const script: ScriptStep[] = [{ tool: 'fx_echo', input: { text: 'launch' } }, { text: (results) => `Noted: ${results.join(' | ')}` }];
    await withAgentWorker(script, async ({ client, durable, taskQueue, logPath }) => {
      const handle = await start(client, taskQueue, {
        prompt: 'Echo launch',
        servers: ['fx'],
        model: 'scripted',
        tools: ['fx_echo'],
        needsApproval: true,
        expiresIn: '2s',
      });
      const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
      assert.ok(request);
      const result = (await handle.result()) as McpAgentResult;
      assert.equal(result.text, 'Noted: error: Tool "echo" of server "fx" did not run: nobody approved it in time (the approval expired).');
      assert.equal(result.toolCalls[0]?.result.metadata?.approval, 'expired');
      assert.equal(readFixtureLog(logPath).filter((e) => e.event === 'call' && e.tool === 'echo').length, 0, 'the tool never ran');
    });
  });

  it('cancelling the agent stops the loop and the tool that waits for a person, and withdraws its request', async () => {
    const script: ScriptStep[] = [{ tool: 'fx_ask_name' }, { text: () => 'never reached' }];
    await withAgentWorker(script, async ({ client, durable, taskQueue, seen }) => {
      const handle = await start(client, taskQueue, { prompt: 'Greet', servers: ['fx'], model: 'scripted', tools: ['fx_ask_name'] });
      const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
      assert.ok(request);
      await handle.cancel();
      await assert.rejects(handle.result(), (err: unknown) => err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure);
      assert.deepEqual(await handle.query(pendingQuery), []);
      assert.equal(seen.length, 1, 'the model was not called again');
    });
  });

  it('ten agents in parallel: their requests in one listing, each tool run once', async () => {
    const script: ScriptStep[] = [{ tool: 'fx_ask_name' }, { text: (results) => results.join('') }];
    await withAgentWorker(script, async ({ client, durable, taskQueue, logPath }) => {
      const handles = await Promise.all(
        Array.from({ length: 10 }, () => start(client, taskQueue, { prompt: 'Greet', servers: ['fx'], model: 'scripted', tools: ['fx_ask_name'] })),
      );
      const ids = new Set(handles.map((h) => h.workflowId));
      const listed = await eventually(async () => {
        const all = (await durable.listAwaitingInput()).filter((w) => ids.has(w.workflowId) && w.pending.length > 0);
        return all.length === 10 ? all : undefined;
      }, 'ten agents listed as awaiting input');
      await Promise.all(listed.map((w) => durable.submit(w.workflowId, { id: w.pending[0]!.request.id, ok: true, data: { name: w.workflowId } })));
      const results = (await Promise.all(handles.map((h) => h.result()))) as McpAgentResult[];
      assert.deepEqual(
        results.map((r) => r.text),
        handles.map((h) => `hello ${h.workflowId}`),
      );
      assert.equal(readFixtureLog(logPath).filter((e) => e.event === 'call' && e.tool === 'ask_name').length, 10, 'each tool ran once');
    });
  });

  it('a long agent (200 steps) continues as new carrying its conversation, and finishes', async () => {
    const steps = 200;
    const script = (n: number): ScriptStep =>
      n < steps - 1 ? { tool: 'fx_echo', input: { text: `step ${n}` } } : { text: (results) => `done after ${results.join('')}` };
    await withAgentWorker(script, async ({ client, taskQueue }) => {
      const handle = await start(client, taskQueue, { prompt: 'Count', servers: ['fx'], model: 'scripted', tools: ['fx_echo'], maxSteps: 500 });
      const result = (await handle.result()) as McpAgentResult;
      assert.equal(result.text, `done after echo: step ${steps - 2}`);
      assert.equal(result.steps, steps);
      assert.equal(result.runs, 4, 'every 50 steps (the default stepsPerRun) a new run');
      assert.equal(result.toolCalls.length, steps - 1);
      assert.deepEqual(
        result.toolCalls.map((c) => c.result.output),
        Array.from({ length: steps - 1 }, (_, i) => `echo: step ${i}`),
      );
      // Each run's history stays small: the first run's ended in continue-as-new.
      const first = await client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
      assert.equal(first.status.name, 'CONTINUED_AS_NEW');
    });
  });

  it('durable-mcp agent starts one and follows it: the request with its answer command, then the final text', async () => {
    const script: ScriptStep[] = [{ tool: 'fx_ask_name' }, { text: (results) => `final: ${results.join('')}` }];
    await withAgentWorker(script, async ({ durable, taskQueue }) => {
      const workflowId = `agent-cli-${randomUUID().slice(0, 8)}`;
      const cliEnv = { TEMPORAL_ADDRESS: env.address, DURABLE_MCP_TASK_QUEUE: taskQueue, DURABLE_MCP_ENCRYPTION_KEYS: '' };
      const following = spawnNode(
        [cli, 'agent', 'scripted', '--server', 'fx', '--tools', 'fx_ask_name', '--prompt', 'Greet', '--workflow-id', workflowId],
        cliEnv,
      );
      // The person answers once the follower has shown the request (as a person reading it would).
      await following.waitFor(/What is your name\?[^]*npx durable-mcp answer agent-cli-/, 60_000);
      const [request] = await durable.waitForPending(workflowId, { timeoutMs: 30_000 });
      assert.ok(following.output().includes(`npx durable-mcp answer ${workflowId} ${request!.id}`), following.output());
      await durable.submit(workflowId, { id: request!.id, ok: true, data: { name: 'Grace' } });
      assert.equal(await following.exited, 0, following.output());
      assert.equal(following.stdout().trim(), 'final: hello Grace');
    });
  });

  it('a worker SIGKILLed while the agent waits for a person: answered meanwhile, a new worker finishes, and the model saw the answer', async () => {
    const taskQueue = uniqueTaskQueue('agent-kill');
    const dir = tempDir();
    const configPath = join(dir, 'mcp.json');
    writeFileSync(configPath, JSON.stringify(fixtureConfig(join(dir, 'log.jsonl'))));
    const procEnv = { TEMPORAL_ADDRESS: env.address, TASK_QUEUE: taskQueue, MCP_CONFIG: configPath, DURABLE_MCP_ENCRYPTION_KEYS: '' };
    const entry = fileURLToPath(new URL('./agent-worker-process.js', import.meta.url));
    const first = spawnNode([entry], procEnv);
    const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
    const durable = new DurableMcpClient(client, { taskQueue });
    try {
      await first.waitFor(/agent worker: ready/, 120_000);
      const handle = await start(client, taskQueue, { prompt: 'Greet the guest', servers: ['fx'], model: 'scripted', tools: ['fx_ask_name'] });
      const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
      await first.kill('SIGKILL');
      // The person answers while no worker runs (the `answer` signal, durable): a new worker takes it up. The first
      // bundled the workflows at start as a user's worker does; the second runs the same bundle, made once (./agent-bundle.ts).
      await handle.signal(answerSignal, { id: request!.id, ok: true, data: { name: 'Lin' } });
      const second = spawnNode([entry], { ...procEnv, AGENT_WORKFLOW_BUNDLE: await agentWorkflowBundleFile() });
      try {
        const result = (await handle.result()) as McpAgentResult;
        assert.equal(result.text, 'The tool said: hello Lin');
        assert.match(second.stdout(), /model saw: \["hello Lin"\]/);
      } finally {
        await second.kill('SIGTERM');
      }
    } finally {
      await first.kill('SIGKILL').catch(() => undefined);
    }
  });

  it('an invalid input fails the agent naming the field', async () => {
    await withAgentWorker([{ text: () => 'never' }], async ({ client, taskQueue }) => {
      const handle = await start(client, taskQueue, { prompt: 'x', servers: [], model: 'scripted' });
      await assert.rejects(handle.result(), (err: unknown) => err instanceof WorkflowFailedError && /field "servers"/.test(String(err.cause?.message)));
    });
  });
});
