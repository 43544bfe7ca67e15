/** B3: the idle cost of released pending requests (legacy era), against an idle worker and trivial waiting workflows. */
import { pendingQuery } from '../src/workflows/messages.js';
import { benchPing, benchPingUpdate } from './workflows.js';
import { benchWorkerEntry, botAnswer, now, p50, round, rssMiB, runLanes, scaled, sleep, startWorkerProcess, steadyRssMiB } from './lib.js';
import {
  askInput,
  benchSetup,
  startAwaitingInput,
  callTool,
  countEvents,
  echoInput,
  expectOutput,
  fixtureChildren,
  taskQueueFor,
  wid,
  type Benchmark,
} from './setup.js';

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
    // … and wait until every workflow shows its request as pending (visibility, through the search attribute) …
    const { handles, startS, tStart, deadline } = await startAwaitingInput(client, {
      taskQueue,
      n,
      prefix: 'b3-held',
      input: askInput(0),
      deadlineMs: 400_000,
      progress: (count, s) => console.error(`[B3] ${s} s: ${count}/${n} awaiting input (visibility); ${countEvents(fx.logPath).askCalls} ask_name runs`),
    });
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
