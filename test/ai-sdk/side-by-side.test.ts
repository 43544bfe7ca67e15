/**
 * durableMcpTools beside Temporal's own TemporalMCPClient in one workflow (docs/agents.md): one worker with both
 * plugins (DurableMcpPlugin with the fixture server "fx" in its MCP config; AiSdkPlugin with the scripted model and
 * an MCP client factory "notes", `@ai-sdk/mcp`'s createMCPClient over stdio to the same fixture server as a process
 * of its own), a real dev server. One agent calls a tool of each: durable-mcp's asks a person, who answers through
 * DurableMcpClient; TemporalMCPClient's runs as its own activity. A tool that asks, called through TemporalMCPClient,
 * asks nobody: it gets no elicitation, approvals or inbox.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { DurableMcpClient } from '../../src/client/index.js';
import { DurableMcpPlugin } from '../../src/worker.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { createLocalEnv, fixtureConfig, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { agentWorkflowBundle } from './agent-bundle.js';
import { scriptedModel, type ScriptStep } from './scripted-model.js';

describe('durableMcpTools and TemporalMCPClient side by side in one workflow', () => {
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: false });
  });
  after(async () => {
    await env?.teardown();
  });

  it("one agent calls a tool of each: durable-mcp's asks a person durably, TemporalMCPClient's runs as its own activity and asks nobody", async () => {
    const script: ScriptStep[] = [
      { tool: 'fx_ask_name' }, // durable-mcp: the person is asked
      { tool: 'echo', input: { text: 'hi' } }, // TemporalMCPClient
      { tool: 'ask_name' }, // TemporalMCPClient: a tool that asks, with no one to ask
      { text: () => 'done' },
    ];
    const scripted = scriptedModel(script);
    const taskQueue = uniqueTaskQueue('side-by-side');
    const namespace = env.namespace ?? 'default';
    const notesLog = join(tempDir(), 'notes.jsonl');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace,
      taskQueue,
      workflowBundle: await agentWorkflowBundle(),
      plugins: [
        new DurableMcpPlugin({ mcpConfig: fixtureConfig(join(tempDir(), 'fx.jsonl')), encryption: false }),
        new AiSdkPlugin({
          modelProvider: scripted.provider(),
          mcpClientFactories: {
            notes: () =>
              createMCPClient({
                transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: [fixtureServerPath], env: { FIXTURE_LOG: notesLog } }),
              }),
          },
        }),
      ],
    });
    const client = new Client({ connection: env.connection, namespace });
    const durable = new DurableMcpClient(client, { taskQueue });
    await worker.runUntil(async () => {
      const handle = await client.workflow.start('sideBySideAgent', {
        taskQueue,
        workflowId: `side-by-side-${randomUUID().slice(0, 8)}`,
        args: ['Greet, then echo'],
      });
      const [request] = await durable.waitForPending(handle.workflowId, { timeoutMs: 60_000 });
      assert.equal(request?.prompt, 'What is your name?');
      await durable.submit(handle.workflowId, { id: request!.id, ok: true, data: { name: 'Ada' } }, { by: 'ada@example.com' });
      const result = (await handle.result()) as { text: string; tools: string[] };
      assert.equal(result.text, 'done');
      // Both families of tools, under names that cannot collide: durable-mcp's `server_tool`, the server's own.
      assert.ok(result.tools.includes('fx_ask_name') && result.tools.includes('echo') && result.tools.includes('ask_name'), result.tools.join(', '));

      // What the model read after each tool: the person's answer; the echo (TemporalMCPClient's raw CallToolResult);
      // the tool that asks, called through TemporalMCPClient, failing to ask (no elicitation there).
      assert.deepEqual(scripted.seen[1], ['hello Ada']);
      assert.match(scripted.seen[2]![0]!, /echo: hi/);
      assert.match(scripted.seen[3]![0]!, /elicitation failed/);
      // Only the durable tool's question was ever a request of the workflow.
      assert.deepEqual(await durable.pendingDetails(handle.workflowId), []);

      // Each tool call an activity of its plugin, in the order the agent made them.
      const events = (await handle.fetchHistory()).events!;
      assert.equal(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length, 1, "durable-mcp's listing");
      const scheduled = events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));
      // durable-mcp lists its server in a local activity (Versions.agentFastPath: a marker, not a scheduled activity).
      assert.deepEqual(scheduled, [
        'notes-listTools',
        'invokeModel',
        'callMcpTool',
        'invokeModel',
        'notes-callTool',
        'invokeModel',
        'notes-callTool',
        'invokeModel',
      ]);
    });
  });
});
