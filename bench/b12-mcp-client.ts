/**
 * B12: one agent step (a model call that asks for one MCP tool, the tool call, the model call that reads its result)
 * through durable-mcp (`mcpAgent`: durableMcpTools) and through Temporal's own `TemporalMCPClient`
 * (`@temporalio/ai-sdk/workflow`, its MCP client factory on AiSdkPlugin: `@ai-sdk/mcp`'s createMCPClient over stdio).
 * One worker in this process runs both (DurableMcpPlugin and AiSdkPlugin), the same scripted model (one provider, a model
 * id per side since the tools' names differ: `server_tool` against the bare name), the same MCP server; samples
 * interleaved. Two servers: the demo server (`durable-mcp dev`'s, MCP 2026-07-28) and the fixture server (legacy era).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Worker } from '@temporalio/worker';
import { MockProviderV4 } from 'ai/test';
import { DurableMcpPlugin } from '../src/worker.js';
import { scriptedModel, type ScriptStep } from '../test/ai-sdk/scripted-model.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { now, p50, p95, round, runInProcess, scaled, type BenchResult, type Cleanup } from './lib.js';
import { fixtureServerPath, startDevServer, taskQueueFor, type Benchmark } from './setup.js';

/**
 * BENCH_EAGER_ACTIVITIES=1: the dev server dispatches activities eagerly (`system.enableActivityEagerExecution`, off by
 * default): the activity comes back with the workflow task's completion instead of through matching. Both sides alike.
 */
const eagerActivities = process.env.BENCH_EAGER_ACTIVITIES === '1';

/** B12's target: durable-mcp's agent step at most 0.8× TemporalMCPClient's (p50, issue 43). */
export const B12_TARGET_RATIO = 0.8;

const workflowsPath = fileURLToPath(new URL('./b12-workflows.js', import.meta.url));
const demoServerPath = fileURLToPath(new URL('../src/cli/demo-server.js', import.meta.url));

/**
 * What B12 measures, what the fast path (Versions.agentFastPath) removed from an agent step, and why that is safe (the
 * note docs/benchmarks.md shows).
 */
function noteOf(s: Side): string {
  const what =
    `One agent step, start to result, on ${s.era}: the scripted model asks for ${s.tool}, the tool runs, the model answers. ` +
    'mcpAgent (durableMcpTools) against a workflow with TemporalMCPClient and temporalProvider (its listing the ' +
    '`<server>-listTools` activity, each call the `<server>-callTool` activity, which lists the tools again before it calls); ' +
    'one worker in the bench process (DurableMcpPlugin and AiSdkPlugin, the same scripted model), the same MCP server, a dev ' +
    'server, sequential interleaved samples after 3 of warm-up. ';
  if (s.server !== 'demo')
    return (
      what +
      'A legacy-era server can ask a person on the live session while a call runs, so its calls stay the callMcpTool ' +
      'activity: only the listing is a local activity here (see B12).'
    );
  return (
    what +
    'Where the time went (the histories, `node dist/bench/b12-history.js demo`): each activity costs a workflow task to ' +
    'schedule it and one to read its result, about 40-50 ms on this dev server, most of it the workflow task waiting to be ' +
    'picked up (20-35 ms); the activities themselves take 2-10 ms, the MCP round trips 1-3 ms, the approval check and the ' +
    "session lease well under 1 ms (a CPU profile of the worker, `node --cpu-prof`, shows the workflow thread's time in " +
    "the bundle's per-run module evaluation and the SDK's promise stack traces, alike on both sides). Removed for a tool " +
    'that neither asks nor needs approval (Versions.agentFastPath): (1) the listing is a local activity (a read, its result ' +
    "a marker in history; from the session's list when younger than 30 s), so the first workflow task schedules the model " +
    'call at once; a server that needs a login, or a listing that fails, goes through mcpListTools as before; (2) a call of a ' +
    'tool the listing marks inline (a 2026-07-28 session, no OAuth, a tool not known to ask the old way) whose agent asks no ' +
    "approval runs its first attempt as a local activity: its result is a marker in history, as an activity's result is " +
    'an event. Such a call cannot hold for a person (an input_required round is an outcome, and every later attempt is the ' +
    'callMcpTool activity); an attempt that finds a legacy-era session or a tool asking the old way hands the call back to ' +
    'the activity before anything runs (a tool refused as asking the old way goes to the legacy era at once, as before: it ' +
    "runs as often as before). A failed inline attempt counts as one of the call's attempts. A crash runs the tool again " +
    'at most once, as before: the marker is written when the workflow task completes (a few ms after the tool), where an ' +
    "activity's result is written when it completes. Eager activity dispatch (BENCH_EAGER_ACTIVITIES=1, the dev server's " +
    '`system.enableActivityEagerExecution`) helps both sides alike and is off here (the dev server default).'
  );
}

/** A server of B12: its command, the tool the model calls, its arguments and the text its result holds. */
export interface Side {
  server: string;
  path: string;
  era: string;
  tool: string;
  input: Record<string, unknown>;
  output: string;
}
export const sides: Side[] = [
  { server: 'demo', path: demoServerPath, era: 'MCP 2026-07-28 (the demo server)', tool: 'add', input: { a: 20, b: 22 }, output: '42' },
  { server: 'fx', path: fixtureServerPath, era: 'legacy (the fixture server)', tool: 'echo', input: { text: 'x' }, output: 'echo: x' },
];

const script = (tool: string, input: Record<string, unknown>): ScriptStep[] => [{ tool, input }, { text: (results) => results.join('') }];

/** B12's worker in this process: both plugins, the scripted models of both sides, each server through both clients. */
export async function b12Worker(cleanup: Cleanup, env: TestWorkflowEnvironment, taskQueue: string): Promise<void> {
  const languageModels: Record<string, unknown> = {};
  for (const s of sides) {
    languageModels[`durable-${s.server}`] = scriptedModel(script(`${s.server}_${s.tool}`, s.input)).model;
    languageModels[`temporal-${s.server}`] = scriptedModel(script(s.tool, s.input)).model;
  }
  const stdio = (path: string) => () => createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: [path] }) });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowsPath,
    plugins: [
      new DurableMcpPlugin({
        mcpConfig: { mcpServers: Object.fromEntries(sides.map((s) => [s.server, { command: [process.execPath, s.path] }])) },
        encryption: false,
        tracing: false,
      }),
      new AiSdkPlugin({
        modelProvider: new MockProviderV4({ languageModels: languageModels as never }),
        mcpClientFactories: Object.fromEntries(sides.map((s) => [s.server, stdio(s.path)])),
      }),
    ],
  });
  runInProcess(cleanup, 'b12 worker', worker);
}

export const b12: Benchmark = {
  id: 'B12',
  name: 'agent step against TemporalMCPClient',
  budgetS: 120,
  async run(cleanup) {
    const env = await startDevServer(cleanup, eagerActivities ? { serverArgs: ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'] } : {});
    const taskQueue = taskQueueFor('b12');
    await b12Worker(cleanup, env, taskQueue);
    const results: BenchResult[] = [];
    for (const s of sides) {
      const t0 = now();
      const warmup = 3;
      const n = scaled(30, 5);
      const durable: number[] = [];
      const temporal: number[] = [];
      for (let i = 0; i < warmup + n; i++) {
        const keep = i >= warmup;
        let t = now();
        const d = (await env.client.workflow.execute('mcpAgent', {
          taskQueue,
          workflowId: `b12-durable-${randomUUID()}`,
          args: [{ prompt: 'go', servers: [s.server], model: `durable-${s.server}`, tools: [`${s.server}_${s.tool}`] }],
        })) as { text: string };
        if (!d.text.includes(s.output)) throw new Error(`B12: mcpAgent on ${s.server} returned ${JSON.stringify(d.text)}`);
        if (keep) durable.push(now() - t);
        t = now();
        const r = (await env.client.workflow.execute('temporalMcpAgent', {
          taskQueue,
          workflowId: `b12-temporal-${randomUUID()}`,
          args: [{ prompt: 'go', server: s.server, model: `temporal-${s.server}` }],
        })) as { text: string };
        // TemporalMCPClient hands the model the JSON of the CallToolResult.
        if (!r.text.includes(s.output)) throw new Error(`B12: temporalMcpAgent on ${s.server} returned ${JSON.stringify(r.text)}`);
        if (keep) temporal.push(now() - t);
      }
      const ratio = p50(durable) / p50(temporal);
      const modern = s.server === 'demo';
      results.push({
        id: modern ? 'B12' : 'B12L',
        name: modern ? 'agent step against TemporalMCPClient' : 'agent step against TemporalMCPClient (legacy era)',
        measured: { 'durable-mcp p50 ms': round(p50(durable)), 'durable-mcp p95 ms': round(p95(durable)) },
        baseline: { 'TemporalMCPClient p50 ms': round(p50(temporal)), 'TemporalMCPClient p95 ms': round(p95(temporal)) },
        ratio: round(ratio),
        ratioLabel: 'mcpAgent p50 / TemporalMCPClient agent p50',
        target: modern ? `≤ ${B12_TARGET_RATIO}×` : 'reported (the fast path of a call needs the 2026-07-28 era)',
        met: modern ? ratio <= B12_TARGET_RATIO : null,
        note: noteOf(s),
        details: { server: s.server, 'eager activity dispatch': eagerActivities ? 'on (BENCH_EAGER_ACTIVITIES=1)' : 'off (the dev server default)' },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      });
    }
    return results;
  },
};
