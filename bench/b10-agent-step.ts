/**
 * B10: what Temporal adds to one agent step (a model call that asks for an MCP tool, the tool call, and the model call
 * that reads its result), against the same scripted model and MCP server driven in process by the AI SDK with
 * McpSource. Temporal side: the workflow `mcpAgent` on a worker with DurableMcpPlugin and AiSdkPlugin (in this
 * process), start to result. Baseline: `generateText` with the same MockLanguageModelV4 and an AI SDK tool that calls
 * `McpSource.callTool` on a session of this process.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Worker } from '@temporalio/worker';
import { dynamicTool, generateText, jsonSchema, stepCountIs } from 'ai';
import { McpSource } from '../src/mcp/index.js';
import { DurableMcpPlugin } from '../src/worker.js';
import { scriptedModel, type ScriptStep } from '../test/ai-sdk/scripted-model.js';
import { now, p50, p95, round, runInProcess, scaled, type BenchResult } from './lib.js';
import { benchSetup, taskQueueFor, type Benchmark } from './setup.js';

/** B10's target, set from the first measurements (48× and 72×: the in-process step takes 3-5 ms, so the ratio is noisy): an agent step through Temporal within 100× the in-process one, about 250 ms with the scripted model. */
export const B10_TARGET_RATIO = 100;

const workflowsPath = fileURLToPath(new URL('../test/ai-sdk/agent-workflows.js', import.meta.url));
const script: ScriptStep[] = [{ tool: 'fx_echo', input: { text: 'x' } }, { text: (results) => results.join('') }];

export const b10: Benchmark = {
  id: 'B10',
  name: 'agent step',
  budgetS: 90,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b10');
    const taskQueue = taskQueueFor('b10');
    const scripted = scriptedModel(script);
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowsPath,
      plugins: [new DurableMcpPlugin({ mcpConfig: fx.config, encryption: false, tracing: false }), new AiSdkPlugin({ modelProvider: scripted.provider() })],
    });
    runInProcess(cleanup, 'b10 worker', worker);
    const source = await McpSource.load(fx.config);
    cleanup.defer('b10 McpSource', () => source.close());
    const info = source.tools.find((t) => t.name === 'fx_echo')!;
    const tools = {
      fx_echo: dynamicTool({
        description: info.description ?? '',
        inputSchema: jsonSchema(info.inputSchema as never),
        execute: async (input) => source.callTool('fx_echo', input as Record<string, unknown>),
        toModelOutput: ({ output }) => ({ type: 'text', value: (output as { output: string }).output }),
      }),
    };
    const inProcess = scriptedModel(script);
    const warmup = 3;
    const n = scaled(30, 5);
    const agent: number[] = [];
    const local: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const keep = i >= warmup;
      let t = now();
      const handle = await env.client.workflow.start('mcpAgent', {
        taskQueue,
        workflowId: `b10-${randomUUID()}`,
        args: [{ prompt: 'echo x', servers: ['fx'], model: 'scripted', tools: ['fx_echo'] }],
      });
      const r = (await handle.result()) as { text: string };
      if (r.text !== 'echo: x') throw new Error(`B10: mcpAgent returned ${JSON.stringify(r.text)}`);
      if (keep) agent.push(now() - t);
      t = now();
      const g = await generateText({ model: inProcess.model, prompt: 'echo x', tools, stopWhen: stepCountIs(5), maxRetries: 0 });
      if (g.text !== 'echo: x') throw new Error(`B10: in-process generateText returned ${JSON.stringify(g.text)}`);
      if (keep) local.push(now() - t);
    }
    const ratio = p50(agent) / p50(local);
    const result: BenchResult = {
      id: 'B10',
      name: 'agent step',
      measured: { 'mcpAgent p50 ms': round(p50(agent)), 'mcpAgent p95 ms': round(p95(agent)) },
      baseline: { 'in-process p50 ms': round(p50(local)), 'in-process p95 ms': round(p95(local)) },
      ratio: round(ratio),
      ratioLabel: 'mcpAgent p50 / in-process generateText p50',
      target: `≤ ${B10_TARGET_RATIO}×`,
      met: ratio <= B10_TARGET_RATIO,
      note:
        'One agent step: the scripted model (MockLanguageModelV4) asks for fx echo, the tool runs, the model reads its result ' +
        'and answers. mcpAgent (start to result: the tool listing, two model activities, one callMcpTool activity, dev server, ' +
        'worker in the bench process with DurableMcpPlugin and AiSdkPlugin) against generateText in process with the same model ' +
        'and McpSource.callTool on a warm session. Sequential, interleaved samples.',
      details: {},
      samples: n,
      seconds: round((now() - t0) / 1000, 1),
    };
    return [result];
  },
};
