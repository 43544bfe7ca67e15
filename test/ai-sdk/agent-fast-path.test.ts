/**
 * The agent's fast path (Versions.agentFastPath, docs/benchmarks.md B12): `durableMcpTools` lists each server in a local
 * activity, and a call that cannot hold for a person (a 2026-07-28 session, a tool that does not ask the old way, no
 * OAuth, no approval asked) runs its first attempt as a local activity, its result a marker in history. Everything else
 * keeps the durable path: an approval, a legacy-era question, a tool that turns out to ask the old way. Real parts: a
 * dev server, `mcpAgent` on a worker with DurableMcpPlugin and AiSdkPlugin, the scripted model, the demo server
 * (2026-07-28), the modern and old-way fixture servers and the legacy fixture server over stdio.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { McpAgentInput, McpAgentResult } from '../../src/ai-sdk/index.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { DurableMcpPlugin } from '../../src/worker.js';
import { modernServerPath, oldWayServerPath, readFixtureLog } from '../fixtures/paths.js';
import { recordHistory } from '../helpers/history.js';
import { createLocalEnv, fixtureConfig, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { agentWorkflowBundle } from './agent-bundle.js';
import { scriptedModel, type ScriptStep } from './scripted-model.js';

const demoServerPath = fileURLToPath(new URL('../../src/cli/demo-server.js', import.meta.url));

/** What a history shows of a run: its activities (by type), its local activities, and the decoded payloads of its markers. */
async function shapeOf(handle: WorkflowHandle) {
  const { events } = await handle.fetchHistory();
  const activities = events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));
  const markers = events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  const markerTexts = markers.flatMap((e) =>
    Object.values(e.markerRecordedEventAttributes!.details ?? {}).flatMap((p) => (p.payloads ?? []).map((x) => Buffer.from(x.data ?? []).toString('utf8'))),
  );
  return { activities, localActivities: markers.length, markerTexts };
}

describe('mcpAgent: the fast path of a call that cannot hold for a person, and the durable path of the others', () => {
  let env: TestWorkflowEnvironment;
  let client: Client;
  let durable: DurableMcpClient;
  let taskQueue: string;
  let worker: Worker;
  let running: Promise<void>;
  /** A worker that keeps no workflow in its cache: every workflow task replays the run's history from its start. */
  let replaying: Worker | undefined;
  let replayingRun: Promise<void> | undefined;
  const oldWayLog = join(tempDir(), 'old-way.jsonl');
  const modernLog = join(tempDir(), 'modern.jsonl');
  /** The scripted model's step for a prompt: each test's model calls one tool (its prompt names it), then answers. */
  const scripts = new Map<string, ScriptStep[]>();
  const scripted = scriptedModel((n) => scripts.get(current)![Math.min(n, 1)]!);
  let current = '';

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: false });
    taskQueue = uniqueTaskQueue('agent-fast');
    const config = fixtureConfig(join(tempDir(), 'fx.jsonl'), {
      demo: { command: [process.execPath, demoServerPath] },
      modern: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: modernLog } },
      oldway: { command: [process.execPath, oldWayServerPath], env: { FIXTURE_LOG: oldWayLog } },
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: await agentWorkflowBundle(),
      plugins: [new DurableMcpPlugin({ mcpConfig: config, encryption: false }), new AiSdkPlugin({ modelProvider: scripted.provider() })],
    });
    running = worker.run();
    client = env.client;
    durable = new DurableMcpClient(client, { taskQueue });
  });
  after(async () => {
    replaying?.shutdown();
    await replayingRun;
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  /** Start `mcpAgent` with the model's script for this test: call `tool` with `input`, then answer with the tool's result. */
  function start(tool: string, input: Record<string, unknown>, agent: Partial<McpAgentInput> & { servers: string[] }) {
    current = randomUUID();
    scripts.set(current, [{ tool, input }, { text: (results) => `Result: ${results.join(' | ')}` }]);
    return client.workflow.start('mcpAgent', {
      taskQueue,
      workflowId: `agent-fast-${randomUUID().slice(0, 8)}`,
      args: [{ prompt: current, model: 'scripted', tools: [tool], ...agent }],
    });
  }

  it('a 2026-07-28 tool that asks nobody runs inline: the listing and the call are local activities, the result in history', async () => {
    const handle = await start('demo_add', { a: 20, b: 22 }, { servers: ['demo'] });
    const result = (await handle.result()) as McpAgentResult;
    assert.equal(result.text, 'Result: {"sum":42}');
    assert.deepEqual(
      result.toolCalls.map((c) => [c.name, c.outcome, c.result.output]),
      [['demo_add', 'ok', '{"sum":42}']],
    );
    const shape = await shapeOf(handle);
    assert.deepEqual(shape.activities, ['invokeModel', 'invokeModel'], 'no listMcpTools or callMcpTool activity');
    assert.equal(shape.localActivities, 2, 'the listing and the call');
    assert.ok(
      shape.markerTexts.some((t) => t.includes('"status":"completed"') && t.includes('{\\"sum\\":42}')),
      `the call's result is in history: ${shape.markerTexts.join(' / ')}`,
    );
    // Replayed by test/workflows/replay.test.ts (the agent's bundle; recorded without a codec).
    await recordHistory(handle, 'agent-inline-call', env.address);
  });

  it('a call the agent wants approved takes the durable path: the approval waits in the workflow, the call is the activity', async () => {
    const handle = await start('demo_add', { a: 1, b: 2 }, { servers: ['demo'], needsApproval: ['demo_add'] });
    const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
    assert.match(request!.prompt, /add/);
    await durable.submit(handle.workflowId, { id: request!.id, ok: true }, { by: 'alice' });
    const result = (await handle.result()) as McpAgentResult;
    assert.equal(result.text, 'Result: {"sum":3}');
    assert.equal(result.toolCalls[0]?.result.metadata?.approval, 'approved');
    const shape = await shapeOf(handle);
    assert.deepEqual(shape.activities, ['invokeModel', 'callMcpTool', 'callMcpTool', 'invokeModel'], 'the approval asked, then the approved call');
    assert.equal(shape.localActivities, 1, 'the listing only');
  });

  it('a 2026-07-28 tool that asks a person: the inline attempt returns its round, the answer goes in the activity', async () => {
    const handle = await start('modern_ask_name', {}, { servers: ['modern'] });
    const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
    assert.equal(request?.kind, 'input');
    await durable.submit(handle.workflowId, { id: request!.id, ok: true, data: { name: 'Ada' } }, { by: 'ada' });
    const result = (await handle.result()) as McpAgentResult;
    assert.equal(result.text, 'Result: Hello Ada');
    const shape = await shapeOf(handle);
    assert.deepEqual(shape.activities, ['invokeModel', 'callMcpTool', 'invokeModel'], 'the round with the answer is the activity');
    assert.equal(shape.localActivities, 2, 'the listing, and the first round inline');
  });

  it('a legacy-era server keeps the durable path: its question is asked on the live session of the callMcpTool activity', async () => {
    const handle = await start('fx_ask_name', {}, { servers: ['fx'] });
    const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
    assert.equal(request?.kind, 'input');
    await durable.submit(handle.workflowId, { id: request!.id, ok: true, data: { name: 'Ada' } }, { by: 'ada' });
    const result = (await handle.result()) as McpAgentResult;
    assert.equal(result.text, 'Result: hello Ada');
    const shape = await shapeOf(handle);
    assert.deepEqual(shape.activities, ['invokeModel', 'callMcpTool', 'invokeModel']);
    assert.equal(shape.localActivities, 1, 'the listing only: no call of a legacy-era server runs inline');
  });

  it('a tool that turns out to ask the old way runs no more often than before: refused inline, then asked in the legacy era', async () => {
    const handle = await start('oldway_greet', {}, { servers: ['oldway'] });
    const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
    await durable.submit(handle.workflowId, { id: request!.id, ok: true, data: { name: 'Ada' } }, { by: 'ada' });
    const result = (await handle.result()) as McpAgentResult;
    assert.equal(result.text, 'Result: Hi Ada');
    const runs = readFixtureLog(oldWayLog).filter((e) => e.event === 'run').length;
    assert.equal(runs, 2, 'refused in the 2026-07-28 era (inline), then run in the legacy era once (as the activity does on its own)');
    const shape = await shapeOf(handle);
    assert.deepEqual(shape.activities, ['invokeModel', 'callMcpTool', 'invokeModel']);
    assert.equal(shape.localActivities, 2, 'the listing, and the refused inline attempt');
  });

  it('replayed on every workflow task (a worker that caches nothing, as after a crash), an inline round is taken from history, not run again', async () => {
    const queue = uniqueTaskQueue('agent-fast-replay');
    replaying = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: queue,
      maxCachedWorkflows: 0,
      workflowBundle: await agentWorkflowBundle(),
      plugins: [
        new DurableMcpPlugin({
          mcpConfig: { mcpServers: { modern: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: modernLog } } } },
          encryption: false,
        }),
        new AiSdkPlugin({ modelProvider: scripted.provider() }),
      ],
    });
    replayingRun = replaying.run();
    const before = readFixtureLog(modernLog).filter((e) => e.event === 'tool' && e.tool === 'busy').length;
    current = randomUUID();
    scripts.set(current, [{ tool: 'modern_busy' }, { text: (results) => `Result: ${results.join(' | ')}` }]);
    const handle = await client.workflow.start('mcpAgent', {
      taskQueue: queue,
      workflowId: `agent-fast-replay-${randomUUID().slice(0, 8)}`,
      args: [{ prompt: current, model: 'scripted', tools: ['modern_busy'], servers: ['modern'] }],
    });
    const result = (await handle.result()) as McpAgentResult;
    assert.equal(result.toolCalls[0]?.outcome, 'ok', JSON.stringify(result.toolCalls));
    const rounds = readFixtureLog(modernLog).filter((e) => e.event === 'tool' && e.tool === 'busy').length - before;
    assert.equal(rounds, 2, 'the tool ran its two rounds once each: the inline one (a marker) was never run again on replay');
    const shape = await shapeOf(handle);
    assert.deepEqual(shape.activities, ['invokeModel', 'callMcpTool', 'invokeModel'], 'the second round is the activity');
    assert.equal(shape.localActivities, 2, 'the listing, and the first round inline');
  });
});
