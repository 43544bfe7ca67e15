/** B2: session reuse, a worker whose pool reuses MCP sessions against one that spawns a server per call. */
import { McpSource } from '../src/mcp/index.js';
import { mcpPipeline } from '../src/workflows/index.js';
import { benchWorkerEntry, now, round, runLanes, scaled, startWorkerProcess, type BenchResult } from './lib.js';
import { benchSetup, callTool, countEvents, echoInput, expectOutput, taskQueueFor, wid, type Benchmark } from './setup.js';

/** Concurrent calls in B2: a worker under load, as in production (its activity slots default to 100). */
const B2_LANES = 50;
/** The same at low concurrency, reported alongside. */
const B2_FEW_LANES = 4;

export const b2: Benchmark = {
  id: 'B2',
  name: 'session reuse',
  budgetS: 150,
  async run(cleanup) {
    const t0 = now();
    const { fx, env, details } = await benchSetup(cleanup, 'b2');
    const n = scaled(150, 50);
    const fewN = scaled(40, 8);
    // Pipeline calls: stages of B2_LANES parallel steps (fewer with a spawn per call: those are slow).
    const pipeReuseStages = scaled(12, 2);
    const pipeSpawnStages = scaled(3, 1);

    // Through a worker process: the pool as configured (sessions reused) vs a pool that closes a session as soon as it is idle.
    const throughWorker = async (label: string, idleMs: number | undefined, pipeStages: number) => {
      const taskQueue = taskQueueFor(`b2-${label}`);
      const w = await startWorkerProcess(cleanup, {
        entry: benchWorkerEntry,
        address: env.address,
        taskQueue,
        configPath: fx.configPath,
        ...(idleMs !== undefined ? { env: { BENCH_POOL_IDLE_MS: String(idleMs) } } : {}),
      });
      const one = async () => {
        const h = await callTool(env.client, taskQueue, echoInput, `b2-${label}`);
        expectOutput(await h.result(), 'echo: x', 'echo');
      };
      await runLanes(B2_LANES, B2_LANES, one); // warm-up
      // Tool calls as activities of one workflow: a pipeline of stages of B2_LANES parallel echo steps.
      const stage = (k: number) => ({
        parallel: Array.from({ length: B2_LANES }, (_, i) => ({ name: `s${k}-${i}`, server: 'fx', tool: 'echo', arguments: { text: 'x' } })),
      });
      // Warm-up of the pipeline shape too: one stage, so the pool holds as many sessions as a stage uses.
      const warm = await env.client.workflow.execute(mcpPipeline, { taskQueue, workflowId: wid(`b2-${label}-warm`), args: [{ steps: [stage(-1)] }] });
      if (warm.status !== 'completed') throw new Error(`B2 warm-up pipeline (${label}) did not complete`);
      const pipeOpenedBefore = countEvents(fx.logPath).sessions;
      const tp = now();
      const piped = await env.client.workflow.execute(mcpPipeline, {
        taskQueue,
        workflowId: wid(`b2-${label}-pipeline`),
        args: [{ steps: Array.from({ length: pipeStages }, (_, k) => stage(k)) }],
      });
      const pipeSeconds = (now() - tp) / 1000;
      const pipeCalls = pipeStages * B2_LANES;
      const pipeOk = Object.values(piped.steps).filter((o) => o.status === 'completed' && o.result?.output === 'echo: x').length;
      if (piped.status !== 'completed' || pipeOk !== pipeCalls) throw new Error(`B2 pipeline (${label}): ${pipeOk} of ${pipeCalls} steps completed`);
      const pipeOpened = countEvents(fx.logPath).sessions - pipeOpenedBefore;
      const openedBefore = countEvents(fx.logPath).sessions;
      const t = now();
      await runLanes(n, B2_LANES, one);
      const seconds = (now() - t) / 1000;
      const opened = countEvents(fx.logPath).sessions - openedBefore;
      // The same at low concurrency …
      const tf = now();
      await runLanes(fewN, B2_FEW_LANES, one);
      const fewPerSecond = fewN / ((now() - tf) / 1000);
      // … and one call at a time.
      const seqN = Math.max(4, Math.round(fewN / 2));
      const ts = now();
      await runLanes(seqN, 1, one);
      const seqPerSecond = seqN / ((now() - ts) / 1000);
      await w.stop();
      return { perSecond: n / seconds, opened, fewPerSecond, seqPerSecond, pipePerSecond: pipeCalls / pipeSeconds, pipeCalls, pipeOpened };
    };
    const reuse = await throughWorker('reuse', undefined, pipeReuseStages);
    const spawn = await throughWorker('spawn', 0, pipeSpawnStages);

    // In process, no Temporal: one McpSource reused vs load + call + close per call.
    const source = await McpSource.load(fx.config);
    cleanup.defer('McpSource', () => source.close());
    const srcN = scaled(30, 5);
    for (let i = 0; i < 10; i++) await source.callTool('fx_echo', { text: 'x' });
    let t = now();
    const reuseCalls = srcN * 20;
    for (let i = 0; i < reuseCalls; i++) expectOutput(await source.callTool('fx_echo', { text: 'x' }), 'echo: x', 'echo');
    const srcReuse = reuseCalls / ((now() - t) / 1000);
    await source.close();
    t = now();
    for (let i = 0; i < srcN; i++) {
      const s = await McpSource.load(fx.config);
      try {
        expectOutput(await s.callTool('fx_echo', { text: 'x' }), 'echo: x', 'echo');
      } finally {
        await s.close();
      }
    }
    const srcSpawn = srcN / ((now() - t) / 1000);
    const seconds = round((now() - t0) / 1000, 1);

    details[`${B2_FEW_LANES} at a time: reuse calls/s`] = round(reuse.fewPerSecond);
    details[`${B2_FEW_LANES} at a time: spawn-per-call calls/s`] = round(spawn.fewPerSecond);
    details[`${B2_FEW_LANES} at a time: ratio`] = round(reuse.fewPerSecond / spawn.fewPerSecond);
    details['sequential reuse calls/s'] = round(reuse.seqPerSecond);
    details['sequential spawn-per-call calls/s'] = round(spawn.seqPerSecond);
    details['sequential ratio'] = round(reuse.seqPerSecond / spawn.seqPerSecond);
    const baselineNote =
      `Reuse: the worker's session pool as configured (idle sessions kept 5 min, at most 32 per server). Baseline: the same ` +
      `worker process with \`pool: { idleTimeoutMs: 0 }\`, so a session is closed as soon as it is idle and (almost) every ` +
      `call spawns and initializes a new MCP server process; "sessions opened" counts the fixture servers that initialized.`;
    // Reuse against spawn-per-call, with the same figures for both shapes of calls.
    const ratioResult = (
      id: string,
      name: string,
      r: { perSecond: number; opened: number },
      sp: { perSecond: number; opened: number },
      note: string,
      samples: number,
      extra: Record<string, number | string>,
    ): BenchResult => ({
      id,
      name,
      measured: { 'reuse calls/s': round(r.perSecond), 'sessions opened': r.opened },
      baseline: { 'spawn-per-call calls/s': round(sp.perSecond), 'sessions opened': sp.opened },
      ratio: round(r.perSecond / sp.perSecond),
      ratioLabel: 'reuse / spawn-per-call throughput',
      target: '≥ 10×',
      met: r.perSecond / sp.perSecond >= 10,
      note,
      details: extra,
      samples,
      seconds,
    });
    const results: BenchResult[] = [
      ratioResult(
        'B2',
        'session reuse (worker, tool calls of a pipeline)',
        { perSecond: reuse.pipePerSecond, opened: reuse.pipeOpened },
        { perSecond: spawn.pipePerSecond, opened: spawn.pipeOpened },
        `Tool calls as activities through a worker process: one \`mcpPipeline\` workflow whose stages each run ${B2_LANES} echo ` +
          `steps in parallel (${reuse.pipeCalls} calls with reuse, ${spawn.pipeCalls} with a spawn per call), start to result. ` +
          baselineNote,
        reuse.pipeCalls,
        {},
      ),
      ratioResult(
        'B2w',
        'session reuse (worker, a workflow per call)',
        reuse,
        spawn,
        `${n} mcpToolCall echo workflows, ${B2_LANES} at a time, start to result, through the same worker processes (after a ` +
          `warm-up of ${B2_LANES}). Each call is a workflow of its own here, and Temporal's cost of a workflow (start, two ` +
          `workflow tasks, the activity, the result) bounds the reuse side, so the ratio is lower than for the calls of one workflow. ${baselineNote} ` +
          `The same is then repeated ${B2_FEW_LANES} at a time (${fewN} calls) and one call at a time (${Math.max(4, Math.round(fewN / 2))} calls; details): ` +
          `at low concurrency each call's own round trips dominate its latency, and the ratio is one of latencies rather than of what the worker can carry.`,
        n,
        details,
      ),
      {
        id: 'B2b',
        name: 'session reuse (in-process McpSource)',
        measured: { 'reuse calls/s': round(srcReuse) },
        baseline: { 'spawn-per-call calls/s': round(srcSpawn) },
        ratio: round(srcReuse / srcSpawn),
        ratioLabel: 'reuse / spawn-per-call throughput',
        target: '≥ 10×',
        met: srcReuse / srcSpawn >= 10,
        note:
          `No Temporal: ${reuseCalls} sequential \`callTool('fx_echo')\` on one loaded McpSource vs ${srcN} × ` +
          `(\`McpSource.load\` + \`callTool\` + \`close\`), i.e. the cost of the MCP server process and its initialize handshake alone.`,
        details: {},
        samples: srcN,
        seconds,
      },
    ];
    return results;
  },
};
