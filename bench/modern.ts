/** B6 and B3m: the modern era (MCP 2026-07-28, multi round-trip requests) through a worker process. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { childPids, livePids } from '../test/helpers/processes.js';
import { modernServerPath, readFixtureLog } from '../test/fixtures/paths.js';
import { createLocalEnv, tempDir } from '../test/helpers/temporal.js';
import { mcpToolCall } from '../src/workflows/index.js';
import { awaitingInputKey, pendingQuery } from '../src/workflows/messages.js';
import type { Benchmark } from './benchmarks.js';
import { botAnswer, now, p50, p95, round, runLanes, scaled, sleep, startWorkerProcess, steadyRssMiB, type Cleanup } from './lib.js';

let seq = 0;
const wid = (prefix: string) => `bench-${prefix}-${process.pid}-${++seq}`;

/** A dev server, a worker process, and the modern fixture server (stdio) as server `m`. */
async function modernSetup(cleanup: Cleanup, prefix: string, envOptions: { searchAttributes?: boolean } = {}) {
  const dir = tempDir(`durable-mcp-bench-${prefix}-`);
  const logPath = join(dir, 'modern.jsonl');
  const configPath = join(dir, 'mcp.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { m: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: logPath } } } }));
  const env = await createLocalEnv(envOptions);
  cleanup.defer('Temporal dev server', () => env.teardown());
  const taskQueue = `bench-${prefix}-${process.pid}-${Date.now()}`;
  const worker = await startWorkerProcess(cleanup, { address: env.address, taskQueue, configPath });
  const modernChildren = () => {
    const live = new Set(livePids(modernServerPath));
    return childPids(worker.pid).filter((p) => live.has(p));
  };
  return { env, worker, taskQueue, logPath, modernChildren };
}

// ---------------------------------------------------------------------------
// B6: an MRTR round as a person sees it
// ---------------------------------------------------------------------------

export const b6: Benchmark = {
  id: 'B6',
  name: 'MRTR round after the answer',
  budgetS: 90,
  async run(cleanup) {
    const t0 = now();
    const { env, taskQueue, logPath } = await modernSetup(cleanup, 'b6');
    const client = env.client;
    const warmup = 3;
    const n = scaled(40, 5);
    const plain: number[] = [];
    const round2: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      // Baseline: a plain tool call through the same worker: start → result (one activity round trip).
      const ts = now();
      const p = await client.workflow.start(mcpToolCall, { taskQueue, workflowId: wid('b6-plain'), args: [{ server: 'm', tool: 'plain', arguments: { label: 'x' } }] });
      const pr = await p.result();
      const plainMs = now() - ts;
      if (pr.output !== 'plain x') throw new Error(`plain: unexpected result ${JSON.stringify(pr)}`);
      // The person's view of a round: from their `submitAnswer` returning to the tool's result.
      const h = await client.workflow.start(mcpToolCall, { taskQueue, workflowId: wid('b6-ask'), args: [{ server: 'm', tool: 'ask_name' }] });
      const bot = await botAnswer(h, { name: 'Ada' }, 20);
      const r = await h.result();
      const roundMs = now() - bot.answeredAt;
      if (r.output !== 'Hello Ada') throw new Error(`ask_name: unexpected result ${JSON.stringify(r)}`);
      if (i >= warmup) {
        plain.push(plainMs);
        round2.push(roundMs);
      }
    }
    const runs = readFixtureLog(logPath).filter((e) => e.event === 'tool' && e.tool === 'ask_name').length;
    const ratio = p50(round2) / p50(plain);
    return [
      {
        id: 'B6',
        name: 'MRTR round as a person sees it',
        measured: { 'answer → result p50 ms': round(p50(round2), 1), 'answer → result p95 ms': round(p95(round2), 1) },
        baseline: { 'plain call start → result p50 ms': round(p50(plain), 1), 'plain call p95 ms': round(p95(plain), 1) },
        ratio: round(ratio),
        ratioLabel: 'p50 answer→result / p50 plain call',
        target: '≤ 1.5×',
        met: ratio <= 1.5,
        note:
          `A worker process (\`node dist/src/cli/worker-command.js\`) with the modern-era fixture server (\`test/fixtures/modern-server.ts\`, ` +
          `SDK v2, stdio). Per sample: a plain \`mcpToolCall\` of the tool \`plain\` (no input) from start to result — one ` +
          `activity round trip through the same worker — then an \`ask_name\` call: a bot polls \`pending\` every 20 ms, answers ` +
          `with \`submitAnswer\`, and the time from that update returning to \`result()\` resolving is the round as the person ` +
          `sees it (the workflow records the answer, schedules round 2, the activity calls the server with inputResponses, the ` +
          `workflow completes). ${warmup} warm-up samples are dropped.`,
        details: { 'ask_name tool-body runs (2 per call)': runs },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      },
    ];
  },
};

// ---------------------------------------------------------------------------
// B3m: idle cost of modern-era requests
// ---------------------------------------------------------------------------

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
    const handles: Array<WorkflowHandle<typeof mcpToolCall>> = [];
    const tStart = now();
    await runLanes(n, 20, async () => {
      handles.push(
        await client.workflow.start(mcpToolCall, {
          taskQueue,
          workflowId: wid('b3m-wait'),
          args: [{ server: 'm', tool: 'ask_name' }],
          typedSearchAttributes: [{ key: awaitingInputKey, value: false }],
        }),
      );
    });
    const countQuery = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running" AND DurableMcpAwaitingInput = true`;
    const deadline = Date.now() + 280_000;
    for (;;) {
      const { count } = await client.workflow.count(countQuery);
      if (count >= n) break;
      if (Date.now() > deadline) throw new Error(`only ${count} of ${n} workflows awaiting input after ${Math.round((now() - tStart) / 1000)} s`);
      await sleep(1000);
    }
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
