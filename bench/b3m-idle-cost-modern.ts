/** B3m: the idle cost of modern-era requests waiting between rounds. */
import { pendingQuery } from '../src/workflows/messages.js';
import { mcpToolCall } from '../src/workflows/index.js';
import { botAnswer, now, round, runLanes, scaled, sleep, steadyRssMiB } from './lib.js';
import { modernSetup, startAwaitingInput, wid, type Benchmark } from './setup.js';

export const b3m: Benchmark = {
  id: 'B3m',
  name: 'idle cost (modern era)',
  budgetS: 300,
  async run(cleanup) {
    const t0 = now();
    const { env, worker, taskQueue, modernChildren } = await modernSetup(cleanup, 'b3m', { searchAttributes: true });
    const client = env.client;
    for (let i = 0; i < 3; i++) {
      const a = await client.workflow.start(mcpToolCall, { taskQueue, workflowId: wid('b3m-warm'), args: [{ server: 'm', tool: 'ask_name' }] });
      await botAnswer(a, { name: 'Ada' }, 20);
      await a.result();
    }
    await sleep(3000);
    const idleRss = await steadyRssMiB(worker.pid);
    const idleServers = modernChildren().length;

    const n = scaled(1000, 20);
    const growthLimit = (100 * n) / 1000;
    const { handles, tStart } = await startAwaitingInput(client, {
      taskQueue,
      n,
      prefix: 'b3m-wait',
      input: { server: 'm', tool: 'ask_name' },
      deadlineMs: 280_000,
    });
    const settleS = (now() - tStart) / 1000;
    await sleep(2000);
    const loadedRss = await steadyRssMiB(worker.pid);
    let withPending = 0;
    let activities = 0;
    await runLanes(handles.length, 20, async (i) => {
      const [pending, d] = await Promise.all([handles[i].query(pendingQuery), handles[i].describe()]);
      if (pending.length === 1) withPending++;
      activities += d.raw.pendingActivities?.length ?? 0;
    });
    const servers = modernChildren().length;
    const growth = loadedRss - idleRss;
    // A session is leased only inside a running activity; with no activity running none is held for a request.
    const ok = activities === 0 && withPending === n && growth <= growthLimit;
    await worker.stop();
    return [
      {
        id: 'B3m',
        name: `idle cost of ${n} modern-era requests`,
        measured: {
          'worker RSS MiB': round(loadedRss, 1),
          'RSS growth MiB': round(growth, 1),
          'growth per request KiB': Math.round((growth * 1024) / n),
          'activities running': activities,
          'sessions leased (= activities running)': activities,
          'MCP server processes (pooled, idle)': servers,
          'requests pending': withPending,
        },
        baseline: { 'idle worker RSS MiB': round(idleRss, 1), 'MCP server processes': idleServers },
        ratio: round(loadedRss / idleRss),
        ratioLabel: 'RSS loaded / idle',
        target: `0 activities, 0 sessions; growth ≤ ${round(growthLimit, 1)} MiB (100 MiB per 1,000)`,
        met: ok,
        note:
          `A worker process with the modern-era fixture server (stdio). After 3 answered ask_name calls (warm-up) its VmRSS ` +
          `(median of 5 reads) is the baseline. Then ${n} mcpToolCall ask_name workflows: each runs round 1 (one activity, ` +
          `which returns input_required and gives its session back to the pool), then waits. Once visibility counts ${n} ` +
          `workflows with DurableMcpAwaitingInput = true, VmRSS is read again and every workflow is checked: one pending ` +
          `request, no pending activity. A session is leased only inside an activity, so no activity means no session held ` +
          `for a request; the MCP server processes counted are the pool's idle ones, reused by the next round.`,
        details: { 'seconds until all were pending': round(settleS, 1) },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      },
    ];
  },
};
