/** B4: recovery after SIGKILL of the worker, against the activity's heartbeat timeout. */
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { Request } from '../src/contract/index.js';
import { answerSignal, pendingQuery } from '../src/workflows/messages.js';
import { now, p50, round, scaled, sleep, startWorkerProcess } from './lib.js';
import { HOLD_LONG, askInput, benchSetup, callTool, countEvents, echoInput, expectOutput, taskQueueFor, type Benchmark } from './setup.js';

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
      for (const deadline = Date.now() + 60_000; ;) {
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
          "workflow tasks timed out on the dead worker's sticky queue": stickyTimeouts,
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
