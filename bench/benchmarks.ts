/** The benchmarks B1–B5, and B6 and B3m of the modern era (bench/modern.ts). Each starts its own Temporal dev server and registers its clean-ups. */
import { WithStartWorkflowOperation, WorkflowUpdateStage, type Client, type WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { Request, ToolResult } from '../src/contract/index.js';
import { McpSource } from '../src/mcp/index.js';
import { answerSignal, awaitingInputKey, pendingQuery } from '../src/workflows/messages.js';
import { mcpPipeline, mcpToolCall } from '../src/workflows/index.js';
import type { McpToolCallInput } from '../src/workflows/mcp-tool-call.js';
import { readFixtureLog } from '../test/fixtures/paths.js';
import { createLocalEnv } from '../test/helpers/temporal.js';
import { b3m, b6 } from './modern.js';
import { benchAnswerUpdate, benchPing, benchPingUpdate, benchRelay, benchStopSignal, benchWatchUpdate } from './workflows.js';
import {
  benchWorkerEntry,
  botAnswer,
  botStartAndAnswer,
  deferFixtureCheck,
  fixtureChildren,
  fixtureSetup,
  now,
  p50,
  p95,
  round,
  rssMiB,
  runLanes,
  scaled,
  sleep,
  startHolderProcess,
  startWorkerProcess,
  steadyRssMiB,
  type BenchResult,
  type Cleanup,
} from './lib.js';

export interface Benchmark {
  id: string;
  name: string;
  /** Budget in seconds at BENCH_SCALE=1 (the run fails the benchmark past 3× its budget, scaled). */
  budgetS: number;
  run(cleanup: Cleanup): Promise<BenchResult[]>;
}

const HOLD_LONG = 10 * 60 * 1000;
let seq = 0;
const wid = (prefix: string) => `bench-${prefix}-${process.pid}-${++seq}`;
const taskQueueFor = (id: string) => `bench-${id}-${process.pid}-${Date.now()}`;

function expectOutput(result: ToolResult, output: string, what: string): void {
  if (result.isError || result.output !== output) throw new Error(`${what}: unexpected tool result ${JSON.stringify(result)}`);
}

async function callTool(client: Client, taskQueue: string, input: McpToolCallInput, prefix: string): Promise<WorkflowHandle<typeof mcpToolCall>> {
  return client.workflow.start(mcpToolCall, { taskQueue, workflowId: wid(prefix), args: [input] });
}

const echoInput: McpToolCallInput = { server: 'fx', tool: 'echo', arguments: { text: 'x' } };
const askInput = (holdFor: number, heartbeatTimeout?: number): McpToolCallInput => ({
  server: 'fx',
  tool: 'ask_name',
  elicitation: { holdFor },
  ...(heartbeatTimeout ? { heartbeatTimeout } : {}),
});

/**
 * What B1–B4 start with: the fixture server's config and log, a dev server (torn down last), and the check
 * that no fixture server outlives the benchmark (its findings land in `details`).
 */
async function benchSetup(cleanup: Cleanup, prefix: string, envOptions: { searchAttributes?: boolean } = {}) {
  const fx = fixtureSetup(prefix);
  const env = await createLocalEnv(envOptions);
  cleanup.defer('Temporal dev server', () => env.teardown());
  const details: Record<string, number | string> = {};
  deferFixtureCheck(cleanup, fx.logPath, details);
  return { fx, env, details };
}

/** The MCP server's own view of its last elicitation: from sending `elicitation/create` to receiving the result (ms). */
function lastElicitationRoundTrip(logPath: string, tool = 'ask_name'): number {
  const log = readFixtureLog(logPath).filter((e) => e.tool === tool && (e.event === 'asked' || e.event === 'received'));
  const received = log.at(-1);
  const asked = log.at(-2);
  if (!received || !asked || received.event !== 'received' || asked.event !== 'asked' || received.pid !== asked.pid) {
    throw new Error(`the fixture log has no asked → received pair for ${tool} at its end`);
  }
  return (received.hr as number) - (asked.hr as number);
}

function countEvents(logPath: string) {
  const log = readFixtureLog(logPath);
  return {
    sessions: log.filter((e) => e.event === 'initialized').length,
    askCalls: log.filter((e) => e.event === 'call' && e.tool === 'ask_name').length,
    echoCalls: log.filter((e) => e.event === 'call' && e.tool === 'echo').length,
  };
}

// ---------------------------------------------------------------------------
// B1: elicitation round trip
// ---------------------------------------------------------------------------

const B1_POLL_MS = 5;
/** B1's target: what the bridge adds to the server's wait, at most this many bare update round trips. */
export const B1_TARGET_RATIO = 2;

export const b1: Benchmark = {
  id: 'B1',
  name: 'elicitation round trip',
  budgetS: 75,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b1');
    const taskQueue = taskQueueFor('b1');
    await startWorkerProcess(cleanup, { entry: benchWorkerEntry, address: env.address, taskQueue, configPath: fx.configPath });
    const client = env.client;
    const ping = await client.workflow.start(benchPing, { taskQueue, workflowId: wid('b1-ping') });
    // The floor's holder runs in a process of its own, as the worker's activities do.
    const holder = await startHolderProcess(cleanup, env.address);

    const warmup = 3;
    const n = scaled(40, 5);
    const echo: number[] = [];
    const ask: number[] = [];
    const seenToResult: number[] = [];
    const answerUpdate: number[] = [];
    const polls: number[] = [];
    const askPolling: number[] = [];
    const pings: number[] = [];
    /** The floor: two update round trips relayed between two clients through a trivial workflow (benchRelay). */
    const floor: number[] = [];
    /** The elicitation round trip as the MCP server sees it (asked → received), per durable ask_name call. */
    const serverRoundTrip: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const keep = i >= warmup;
      // (1) a durable call without elicitation
      let t = now();
      const eh = await callTool(client, taskQueue, echoInput, 'b1-echo');
      expectOutput(await eh.result(), 'echo: x', 'echo');
      if (keep) echo.push(now() - t);
      // (2) a durable call with one elicitation, answered by the bot as soon as it shows in `pending`
      t = now();
      const bot = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b1-ask'), input: askInput(HOLD_LONG) }, { name: 'Ada' });
      expectOutput(await bot.handle.result(), 'hello Ada', 'ask_name');
      const done = now();
      if (keep) {
        ask.push(done - t);
        seenToResult.push(done - bot.seenAt);
        answerUpdate.push(bot.answeredAt - bot.seenAt);
        serverRoundTrip.push(lastElicitationRoundTrip(fx.logPath));
      }
      // (2b) the same, answered by a bot that polls the `pending` query instead
      t = now();
      const ph = await callTool(client, taskQueue, askInput(HOLD_LONG), 'b1-ask-poll');
      const pollingBot = await botAnswer(ph, { name: 'Ada' }, B1_POLL_MS);
      expectOutput(await ph.result(), 'hello Ada', 'ask_name');
      if (keep) {
        askPolling.push(now() - t);
        polls.push(pollingBot.polls);
      }
      // (3) the bare Temporal update round trip
      t = now();
      const echoed = await ping.executeUpdate(benchPingUpdate, { args: [i] });
      if (echoed !== i) throw new Error(`benchPing returned ${echoed}, expected ${i}`);
      if (keep) pings.push(now() - t);
      // (4) the floor: what any durable round trip costs (request recorded before it is shown, answer recorded
      // before it is passed on), with nothing else: the bot watches, the holder's update is held, the bot answers.
      const relayId = wid('b1-relay');
      const watch = await client.workflow.startUpdateWithStart(benchWatchUpdate, {
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: new WithStartWorkflowOperation(benchRelay, { taskQueue, workflowId: relayId, workflowIdConflictPolicy: 'FAIL' }),
      });
      const held = holder.hold(relayId);
      const [heldId] = await watch.result();
      await client.workflow.getHandle(relayId).executeUpdate(benchAnswerUpdate, { args: [heldId] });
      const heldMs = await held;
      if (keep) floor.push(heldMs);
      await client.workflow.getHandle(relayId).signal(benchStopSignal);
    }
    await ping.terminate('benchmark done').catch(() => undefined);
    const counts = countEvents(fx.logPath);

    // (b) the same server, in process, no Temporal
    const source = await McpSource.load(fx.config, (request) => ({ id: request.id, ok: true, data: { name: 'Ada' } }));
    cleanup.defer('McpSource', () => source.close());
    const srcEcho: number[] = [];
    const srcAsk: number[] = [];
    const srcRoundTrip: number[] = [];
    const m = scaled(200, 20);
    for (let i = 0; i < 10 + m; i++) {
      let t = now();
      expectOutput(await source.callTool('fx_echo', { text: 'x' }), 'echo: x', 'McpSource echo');
      if (i >= 10) srcEcho.push(now() - t);
      t = now();
      expectOutput(await source.callTool('fx_ask_name', {}), 'hello Ada', 'McpSource ask_name');
      if (i >= 10) {
        srcAsk.push(now() - t);
        srcRoundTrip.push(lastElicitationRoundTrip(fx.logPath));
      }
    }
    await source.close();
    // The elicitation round trip as the MCP server itself sees it (elicitation/create sent → result received):
    // durable bridge against the same server driven in process. The tool call's own workflow tasks (start,
    // completion) are outside it, so it is what the bridge adds to the server's wait.
    const added = p50(serverRoundTrip) - p50(srcRoundTrip);
    const endToEndAdded = p50(ask) - p50(echo);
    const durable: BenchResult = {
      id: 'B1',
      name: 'elicitation round trip (durable)',
      measured: {
        'added p50 ms': round(added),
        'server-side round trip p50 ms': round(p50(serverRoundTrip)),
        'server-side round trip p95 ms': round(p95(serverRoundTrip)),
        'in-process round trip p50 ms': round(p50(srcRoundTrip), 3),
        'seen→result p50 ms': round(p50(seenToResult)),
      },
      baseline: { 'update p50 ms': round(p50(pings)), 'update p95 ms': round(p95(pings)) },
      ratio: round(added / p50(pings)),
      ratioLabel: 'added p50 / update p50',
      target: `≤ ${B1_TARGET_RATIO}×`,
      met: added / p50(pings) <= B1_TARGET_RATIO,
      note:
        `The elicitation round trip as the MCP server sees it: the fixture server logs (with its own monotonic clock) when it ` +
        `sends \`elicitation/create\` and when the result arrives. Durable: mcpToolCall ask_name through a worker process ` +
        `(holdFor 10 min: the call waits inline), answered by a bot that starts the call together with a \`waitForPending\` ` +
        `update (update-with-start: told in the workflow task that records the request) and answers with the \`submitAnswer\` ` +
        `update. In process: the same server driven by \`McpSource.load(config, waitFor)\` whose waitFor answers at once (B1b). ` +
        `Added = p50(durable) − p50(in process); ratio = added / p50 of the bare update round trip (one update of a trivial ` +
        `workflow, \`benchPing\`, whose handler returns at once, on the same worker). Sequential samples, interleaved with ` +
        `(1) an mcpToolCall echo, (2b) the same ask_name with a bot that polls the \`pending\` query every ${B1_POLL_MS} ms, ` +
        `(3) the update, and (4) the floor: \`benchRelay\`, a trivial workflow where a holder client's update is held until ` +
        `the bot, told by a watch update in the task that accepted it, answers with a second update (two update round ` +
        `trips relayed between two clients, no timers, no validation, no MCP: the least any bridge that records the ` +
        `request before showing it and the answer before passing it on can cost). ` +
        `End to end (details): p50(ask_name) − p50(echo), start to result: ${round(endToEndAdded)} ms here, ` +
        `${endToEndAdded >= added ? `${round(endToEndAdded - added)} ms more` : `${round(added - endToEndAdded)} ms less`} than the ` +
        `server-side ${round(added)} ms (the two calls' own workflow tasks, outside the server's wait, differ by that much). ` +
        `seen→result: from the bot seeing the request to the workflow result.`,
      details: {
        'end to end: added p50 ms (ask_name − echo)': round(endToEndAdded),
        'end to end: ratio to update p50': round(endToEndAdded / p50(pings)),
        'ask_name p50 ms': round(p50(ask)),
        'ask_name p95 ms': round(p95(ask)),
        'echo p50 ms': round(p50(echo)),
        'echo p95 ms': round(p95(echo)),
        'floor: relay of two updates p50 ms': round(p50(floor)),
        'floor: ratio to update p50': round(p50(floor) / p50(pings)),
        'added / floor': round(added / p50(floor)),
        'bot answer update p50 ms': round(p50(answerUpdate)),
        'added p50 ms, paired (p50 of ask_name − echo per sample)': round(p50(ask.map((a, i) => a - echo[i]))),
        'ask_name p50 ms with a polling bot': round(p50(askPolling)),
        'added p50 ms with a polling bot': round(p50(askPolling) - p50(echo)),
        'polling bot: polls per call p50': p50(polls),
        'ask_name runs of the tool': counts.askCalls,
        'ask_name calls': 2 * (warmup + n),
        'MCP sessions opened': counts.sessions,
      },
      samples: n,
      seconds: 0,
    };

    const srcAdded = p50(srcAsk) - p50(srcEcho);
    const inProcess: BenchResult = {
      id: 'B1b',
      name: 'elicitation round trip (in-process McpSource)',
      measured: { 'ask_name p50 ms': round(p50(srcAsk), 3), 'ask_name p95 ms': round(p95(srcAsk), 3), 'added p50 ms': round(srcAdded, 3) },
      baseline: { 'echo p50 ms': round(p50(srcEcho), 3), 'echo p95 ms': round(p95(srcEcho), 3) },
      ratio: round(p50(srcAsk) / p50(srcEcho)),
      ratioLabel: 'ask_name p50 / echo p50',
      target: 'reference',
      met: null,
      note:
        `The same fixture server driven in process by \`McpSource.load(config, waitFor)\` whose waitFor answers at once: ` +
        `sequential \`callTool('fx_ask_name')\` vs \`callTool('fx_echo')\` on one session (no Temporal). The elicitation's ` +
        `own cost (one more JSON-RPC round trip over stdio); the durable bridge adds ${round(added)} ms at p50 to the server's wait (B1).`,
      details: {},
      samples: m,
      seconds: 0,
    };
    const seconds = round((now() - t0) / 1000, 1);
    durable.seconds = seconds;
    inProcess.seconds = seconds;
    return [durable, inProcess];
  },
};

// ---------------------------------------------------------------------------
// B2: session reuse
// ---------------------------------------------------------------------------

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
      const stage = (k: number) => ({ parallel: Array.from({ length: B2_LANES }, (_, i) => ({ name: `s${k}-${i}`, server: 'fx', tool: 'echo', arguments: { text: 'x' } })) });
      // Warm-up of the pipeline shape too: one stage, so the pool holds as many sessions as a stage uses.
      const warm = await env.client.workflow.execute(mcpPipeline, { taskQueue, workflowId: wid(`b2-${label}-warm`), args: [{ steps: [stage(-1)] }] });
      if (warm.status !== 'completed') throw new Error(`B2 warm-up pipeline (${label}) did not complete`);
      const pipeOpenedBefore = countEvents(fx.logPath).sessions;
      const tp = now();
      const piped = await env.client.workflow.execute(mcpPipeline, { taskQueue, workflowId: wid(`b2-${label}-pipeline`), args: [{ steps: Array.from({ length: pipeStages }, (_, k) => stage(k)) }] });
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
    const ratioResult = (id: string, name: string, r: { perSecond: number; opened: number }, sp: { perSecond: number; opened: number }, note: string, samples: number, extra: Record<string, number | string>): BenchResult => ({
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

// ---------------------------------------------------------------------------
// B3: idle cost of released pending requests
// ---------------------------------------------------------------------------

export const b3: Benchmark = {
  id: 'B3',
  name: 'idle cost',
  budgetS: 420,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b3', { searchAttributes: true });
    const taskQueue = taskQueueFor('b3');
    const worker = await startWorkerProcess(cleanup, { address: env.address, taskQueue, configPath: fx.configPath });
    const client = env.client;

    // Warm-up: a few complete calls of both kinds, so the idle figure is a worker that has served calls.
    for (let i = 0; i < 3; i++) {
      const e = await callTool(client, taskQueue, echoInput, 'b3-warm-echo');
      expectOutput(await e.result(), 'echo: x', 'echo');
      const a = await callTool(client, taskQueue, askInput(0), 'b3-warm-ask');
      await botAnswer(a, { name: 'Ada' }, 20);
      expectOutput(await a.result(), 'hello Ada', 'ask_name');
    }
    await sleep(3000);
    const idleRss = await steadyRssMiB(worker.pid);
    const idleSessions = fixtureChildren(worker.pid).length;

    // Every released call spawns an MCP server process (a released session is closed: a server may still
    // act on the abandoned request), about 4–5 a second on 2 cores, so 1,000 take about 4 minutes.
    const n = scaled(1000, 20);
    const growthLimit = (100 * n) / 1000;
    const handles: Array<WorkflowHandle<typeof mcpToolCall>> = [];
    const tStart = now();
    await runLanes(n, 20, async () => {
      // Started with the search attribute, as the client helpers do: the host only keeps it up to date then.
      handles.push(
        await client.workflow.start(mcpToolCall, {
          taskQueue,
          workflowId: wid('b3-held'),
          args: [askInput(0)],
          typedSearchAttributes: [{ key: awaitingInputKey, value: false }],
        }),
      );
    });
    const startS = (now() - tStart) / 1000;
    // Wait until every workflow shows its request as pending (visibility, through the search attribute) …
    const countQuery = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running" AND DurableMcpAwaitingInput = true`;
    const deadline = Date.now() + 400_000;
    let lastLog = Date.now();
    for (;;) {
      const { count } = await client.workflow.count(countQuery);
      if (count >= n) break;
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        const c = countEvents(fx.logPath);
        console.error(`[B3] ${Math.round((now() - tStart) / 1000)} s: ${count}/${n} awaiting input (visibility); ${c.askCalls} ask_name runs`);
      }
      if (Date.now() > deadline) throw new Error(`only ${count} of ${n} workflows awaiting input after ${Math.round((now() - tStart) / 1000)} s`);
      await sleep(1000);
    }
    // … and no activity runs for any of them.
    let running = handles;
    for (;;) {
      const still: typeof handles = [];
      await runLanes(running.length, 20, async (i) => {
        const d = await running[i].describe();
        if ((d.raw.pendingActivities?.length ?? 0) > 0) still.push(running[i]);
      });
      running = still;
      if (running.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${running.length} workflows still run an activity`);
      await sleep(1000);
    }
    const settleS = (now() - tStart) / 1000;
    await sleep(2000);
    const loadedRss = await steadyRssMiB(worker.pid);
    const heldSessions = fixtureChildren(worker.pid).length;

    // Check the state again, exactly: every workflow has one pending request and no pending activity.
    let withPending = 0;
    let activities = 0;
    await runLanes(handles.length, 20, async (i) => {
      const [pending, d] = await Promise.all([handles[i].query(pendingQuery), handles[i].describe()]);
      if (pending.length === 1) withPending++;
      activities += d.raw.pendingActivities?.length ?? 0;
    });
    const counts = countEvents(fx.logPath);
    const growth = loadedRss - idleRss;
    const ok = activities === 0 && withPending === n && heldSessions <= idleSessions && growth <= growthLimit;
    await worker.stop();
    const listenerWarnings = (worker.proc.output().match(/MaxListenersExceededWarning/g) ?? []).length;

    // Control: the same number of trivial waiting workflows (`benchPing`, no activity at all) on a worker
    // process built the same way: what Temporal's workflow cache costs by itself.
    const ctlQueue = taskQueueFor('b3-control');
    const ctl = await startWorkerProcess(cleanup, { entry: benchWorkerEntry, address: env.address, taskQueue: ctlQueue, configPath: fx.configPath });
    const pingOne = async () => {
      const h = await client.workflow.start(benchPing, { taskQueue: ctlQueue, workflowId: wid('b3-ping') });
      await h.executeUpdate(benchPingUpdate, { args: [1] }); // its first task ran: it sits in the cache
    };
    await runLanes(3, 3, pingOne);
    await sleep(3000);
    const ctlIdle: number[] = [];
    for (let i = 0; i < 5; i++) {
      ctlIdle.push(rssMiB(ctl.pid));
      await sleep(200);
    }
    await runLanes(n, 20, pingOne);
    await sleep(2000);
    const ctlLoaded: number[] = [];
    for (let i = 0; i < 5; i++) {
      ctlLoaded.push(rssMiB(ctl.pid));
      await sleep(200);
    }
    const ctlGrowth = p50(ctlLoaded) - p50(ctlIdle);
    await ctl.stop();
    return [
      {
        id: 'B3',
        name: `idle cost of ${n} released requests`,
        measured: {
          'worker RSS MiB': round(loadedRss, 1),
          'RSS growth MiB': round(growth, 1),
          'growth per request KiB': Math.round((growth * 1024) / n),
          'activities running': activities,
          'MCP servers held': heldSessions,
          'requests pending': withPending,
          [`control: RSS growth of ${n} idle benchPing MiB`]: round(ctlGrowth, 1),
        },
        baseline: { 'idle worker RSS MiB': round(idleRss, 1), 'MCP servers held': idleSessions },
        ratio: round(loadedRss / idleRss),
        ratioLabel: 'RSS loaded / idle',
        target: `0 activities; growth ≤ ${round(growthLimit, 1)} MiB (100 MiB per 1,000)`,
        met: ok,
        note:
          `A worker process (\`node dist/src/cli/worker-command.js\`); after a warm-up of 3 echo and 3 answered ask_name calls, its VmRSS ` +
          `(median of 5 reads) is the baseline. Then ${n} mcpToolCall ask_name workflows with \`elicitation.holdFor: 0\` ` +
          `(released at once). Once visibility counts ${n} running workflows with DurableMcpAwaitingInput = true and ` +
          `describe shows no pending activity on any of them, VmRSS is read again. Then every workflow is checked: its ` +
          `\`pending\` query shows one request and it has no pending activity. "MCP servers held" counts the worker's live ` +
          `fixture-server children (the idle ones left by the warm-up stay in the pool). Control: a worker process with the ` +
          `benchmark workflows (\`bench/worker-process.ts\`, same \`createWorker\`) gets ${n} trivial \`benchPing\` workflows ` +
          `that wait with no activity at all; their RSS growth is what Temporal's workflow cache costs for ${n} waiting ` +
          `workflows by itself, as long as the SDK's default maxCachedWorkflows (not read by this run) holds all ${n}.`,
        details: {
          'seconds to start all': round(startS, 1),
          'MaxListenersExceededWarning in the worker output': listenerWarnings,
          'seconds until all released': round(settleS, 1),
          'MCP sessions opened': counts.sessions,
          'ask_name runs of the tool': counts.askCalls,
        },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      },
    ];
  },
};

// ---------------------------------------------------------------------------
// B4: recovery after SIGKILL of the worker
// ---------------------------------------------------------------------------

const B4_HEARTBEAT_MS = 5000;

export const b4: Benchmark = {
  id: 'B4',
  name: 'recovery',
  budgetS: 80,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b4');
    const taskQueue = taskQueueFor('b4');
    const client = env.client;
    const startOpts = { address: env.address, taskQueue, configPath: fx.configPath };
    let worker = await startWorkerProcess(cleanup, startOpts);
    // Warm-up, so that the first sample's worker is not still loading.
    const warm = await callTool(client, taskQueue, echoInput, 'b4-warm');
    expectOutput(await warm.result(), 'echo: x', 'echo');

    const n = scaled(3, 1);
    const recovery: number[] = [];
    const startup: number[] = [];
    const retryAfterKill: number[] = [];
    const stickyAfterKill: number[] = [];
    let stickyTimeouts = 0;
    for (let i = 0; i < n; i++) {
      const h = await callTool(client, taskQueue, askInput(HOLD_LONG, B4_HEARTBEAT_MS), 'b4');
      let request;
      // A query before the workflow's first task may fail: poll (bounded), and report the last error if it never shows.
      for (const deadline = Date.now() + 60_000; ; ) {
        let pending: Request[] = [];
        try {
          pending = await h.query(pendingQuery);
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`B4: no pending request on ${h.workflowId} within 60 s: ${(err as Error).message}`);
        }
        if (pending.length > 0) {
          request = pending[0];
          break;
        }
        if (Date.now() > deadline) throw new Error(`B4: no pending request on ${h.workflowId} within 60 s`);
        await sleep(20);
      }
      // Let the activity settle into its inline wait (heartbeating) before the kill.
      await sleep(1000);
      const tKill = now();
      const killedAt = Date.now();
      worker.proc.child.kill('SIGKILL');
      await worker.proc.exited;
      await h.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
      const tSpawn = now();
      let readyAt = NaN;
      const next = startWorkerProcess(cleanup, startOpts).then((w) => {
        readyAt = now();
        return w;
      });
      next.catch(() => undefined); // awaited below
      const result = await h.result();
      expectOutput(result, 'hello Ada', 'ask_name after recovery');
      recovery.push(now() - tKill);
      worker = await next;
      startup.push(readyAt - tSpawn);
      // Where the time went, from the server's history: the activity's retry, and the workflow task that
      // the answer created, which was first dispatched to the dead worker's sticky queue.
      const history = await h.fetchHistory();
      for (const e of history.events ?? []) {
        const at = tsToMs(e.eventTime!);
        if (e.eventType === 11 && (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1) retryAfterKill.push(at - killedAt);
        if (e.eventType === 8 && e.workflowTaskTimedOutEventAttributes?.timeoutType === 2) {
          stickyTimeouts++;
          stickyAfterKill.push(at - killedAt);
        }
      }
    }
    await worker.stop();
    const counts = countEvents(fx.logPath);
    const r50 = p50(recovery);
    const rMax = Math.max(...recovery);
    return [
      {
        id: 'B4',
        name: 'recovery after SIGKILL of the worker',
        measured: { 'recovery p50 ms': Math.round(r50), 'recovery max ms': Math.round(rMax) },
        baseline: { 'heartbeat timeout ms': B4_HEARTBEAT_MS },
        ratio: round(r50 / B4_HEARTBEAT_MS),
        ratioLabel: 'recovery p50 / heartbeat timeout',
        target: '≤ heartbeat + 5 s (max)',
        met: rMax <= B4_HEARTBEAT_MS + 5000,
        note:
          `A worker process runs mcpToolCall ask_name with \`heartbeatTimeout: ${B4_HEARTBEAT_MS}\` and holdFor 10 min; once the ` +
          `request is pending (plus 1 s), the worker is SIGKILLed, the answer is sent with the \`answer\` signal (no worker ` +
          `running), and a new worker process is started at once. Measured: SIGKILL to the workflow's result (the new ` +
          `worker's start-up included), ${n} samples; the target applies to the slowest. The server's history tells where ` +
          `the time goes: when the retried activity attempt started, and when the workflow task created by the answer timed ` +
          `out on the killed worker's sticky queue (schedule-to-start) and moved to the normal queue.`,
        details: {
          'worker start-up p50 ms': Math.round(p50(startup)),
          'activity retry started after kill p50 ms': retryAfterKill.length ? Math.round(p50(retryAfterKill)) : 'none',
          'workflow tasks timed out on the dead worker\'s sticky queue': stickyTimeouts,
          'sticky timeout after kill p50 ms': stickyAfterKill.length ? Math.round(p50(stickyAfterKill)) : 'none',
          'ask_name runs of the tool': counts.askCalls,
          'ask_name calls': n,
          'recovery samples ms': recovery.map((r) => Math.round(r)).join(', '),
        },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      },
    ];
  },
};

// ---------------------------------------------------------------------------
// B5: throughput with one elicitation per call
// ---------------------------------------------------------------------------

const B5_LANES = 50;

export const b5: Benchmark = {
  id: 'B5',
  name: 'throughput',
  budgetS: 150,
  async run(cleanup) {
    const t0 = now();
    const env = await createLocalEnv();
    cleanup.defer('Temporal dev server', () => env.teardown());
    const client = env.client;
    const perRound = scaled(150, B5_LANES);

    const measure = async (label: string, fxOptions: Record<string, unknown>) => {
      const fx = fixtureSetup(`b5-${label}`, fxOptions);
      const details: Record<string, number | string> = {};
      deferFixtureCheck(cleanup, fx.logPath, details);
      const taskQueue = taskQueueFor(`b5-${label}`);
      const worker = await startWorkerProcess(cleanup, { address: env.address, taskQueue, configPath: fx.configPath });
      const echoOne = async () => {
        const h = await callTool(client, taskQueue, echoInput, 'b5-echo');
        expectOutput(await h.result(), 'echo: x', 'echo');
      };
      const askOne = async () => {
        const bot = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b5-ask'), input: askInput(HOLD_LONG) }, { name: 'Ada' });
        expectOutput(await bot.handle.result(), 'hello Ada', 'ask_name');
      };
      // Warm-up of both kinds at full concurrency.
      await runLanes(B5_LANES, B5_LANES, echoOne);
      await runLanes(B5_LANES, B5_LANES, askOne);
      const before = countEvents(fx.logPath);
      // Two alternating rounds of each, so drift affects both alike.
      let echoS = 0;
      let askS = 0;
      for (let r = 0; r < 2; r++) {
        let t = now();
        await runLanes(perRound, B5_LANES, echoOne);
        echoS += (now() - t) / 1000;
        t = now();
        await runLanes(perRound, B5_LANES, askOne);
        askS += (now() - t) / 1000;
      }
      const after = countEvents(fx.logPath);
      const total = perRound * 2;
      await worker.stop();
      Object.assign(details, {
        'ask_name runs of the tool': after.askCalls - before.askCalls,
        'ask_name calls': total,
        'MCP sessions opened (measured rounds)': after.sessions - before.sessions,
      });
      return { echoRate: total / echoS, askRate: total / askS, total, details };
    };

    const shipped = await measure('default', {});
    const roomy = await measure('roomy', { maxSessions: 2 * B5_LANES });
    const seconds = round((now() - t0) / 1000, 1);
    const row = (id: string, name: string, m: typeof shipped, config: string): BenchResult => ({
      id,
      name,
      measured: { 'with elicitation calls/s': round(m.askRate) },
      baseline: { 'without elicitation calls/s': round(m.echoRate) },
      ratio: round(m.askRate / m.echoRate),
      ratioLabel: 'with / without elicitation',
      target: '≥ 0.5',
      met: m.askRate / m.echoRate >= 0.5,
      note:
        `A worker process (${config}). ${B5_LANES} lanes each start an mcpToolCall and wait for its result, ${m.total} calls ` +
        `per kind in two alternating rounds after a warm-up of ${B5_LANES} of each. With elicitation: ask_name (holdFor ` +
        `10 min), each answered by the bot (its lane starts the call together with a \`waitForPending\` update, then sends the \`submitAnswer\` ` +
        `update). Without: echo. Throughput = calls / wall time of that kind's rounds. "ask_name runs of the tool" above ` +
        `"ask_name calls" are re-runs of released calls.`,
      details: m.details,
      samples: m.total,
      seconds,
    });
    return [
      row('B5', `throughput at ${B5_LANES} concurrent`, shipped, 'MCP config as shipped: maxSessions 32 per server, fewer than the 50 lanes'),
      row('B5b', `throughput at ${B5_LANES} concurrent, maxSessions ${2 * B5_LANES}`, roomy, `maxSessions ${2 * B5_LANES}, so no call waits for a session`),
    ];
  },
};

export const benchmarks: Benchmark[] = [b1, b2, b3, b4, b5, b6, b3m];
