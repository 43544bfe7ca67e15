#!/usr/bin/env node
/**
 * Minimal reproduction, for temporalio/sdk-java's time-skipping test server (#3088; see scripts/upstream/UPSTREAM.md):
 * a workflow task that cancels a timer which fired while the task was at the worker is refused with
 * `INVALID_ARGUMENT: invalid history builder state for action`, and the run never gets another workflow task (no
 * WorkflowTaskFailed, no WorkflowTaskTimedOut): it stalls for good.
 *
 * Uses only @temporalio/* packages and the Java test server: `$TEMPORAL_TEST_SERVER_PATH`, else
 * `.tools/temporal/bin/temporal-test-server` of this repository (`npm run tools`), else `temporal-test-server` on PATH.
 *
 *   npm run build && node dist/scripts/upstream/timer-cancel-after-fire.js [--rounds 100] [--all] [--step-ms 1] [--span-ms 12]
 *                                                                      [--work 4000000]
 *
 * Each round starts the workflow (`condition(() => signalled, '1s')`, then a wait for `finish`), reads when its timer
 * is due on the server's clock (the TimerStarted event's time + 1 s; time skipping stays locked outside `result()`,
 * so that clock runs at real pace), and sends the `go` signal at the due time plus an offset; the offsets cycle from
 * -span to +span ms in steps. `go` makes the handler spin `--work` loop iterations (a few milliseconds), so that the
 * task that cancels the timer stays at the worker long enough for the timer to fire meanwhile. A round is fine when
 * a WorkflowTaskCompleted follows the signal (then `finish` ends the run); it has stalled when none does 15 s later
 * (past the 10 s workflow task timeout, after which a real server would have retried the task). Stops at the first
 * stalled round (prints its history and the worker's warning) unless `--all`. Exits 1 when a round stalled (the
 * bug), 0 otherwise.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type LogEntry } from '@temporalio/worker';
import { finishSignal, goSignal, timerCancelAfterFire } from './timer-cancel-after-fire-workflow.js';
import { temporalTestServer } from './dev-server.js';

const argv = process.argv.slice(2);
const num = (name: string, dflt: number): number => {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a whole number above 0, got ${JSON.stringify(argv[i + 1])}`);
  return v;
};
const rounds = num('--rounds', 100);
const stepMs = num('--step-ms', 1);
const spanMs = num('--span-ms', 12);
const work = num('--work', 4_000_000);
const all = argv.includes('--all');
const STALL_MS = 15_000;
const TIMER_MS = 1000;

const here = dirname(fileURLToPath(import.meta.url));
const EVENT_NAMES: Record<number, string> = {
  1: 'WorkflowExecutionStarted',
  2: 'WorkflowExecutionCompleted',
  5: 'WorkflowTaskScheduled',
  6: 'WorkflowTaskStarted',
  7: 'WorkflowTaskCompleted',
  8: 'WorkflowTaskTimedOut',
  9: 'WorkflowTaskFailed',
  17: 'TimerStarted',
  18: 'TimerFired',
  19: 'TimerCanceled',
  26: 'WorkflowExecutionSignaled',
  27: 'WorkflowExecutionTerminated',
};

// Core's and the SDK's warnings, kept to show what the worker was told.
const warnings: LogEntry[] = [];
Runtime.install({
  logger: new DefaultLogger('WARN', (entry) => warnings.push(entry)),
  telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  shutdownSignals: [],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

async function main(): Promise<number> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: temporalTestServer() } } });
  const taskQueue = `timer-cancel-after-fire-${process.pid}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: join(here, 'timer-cancel-after-fire-workflow.js') });
  const running = worker.run();
  const offsets: number[] = [];
  for (let o = -spanMs; o <= spanMs; o += stepMs) offsets.push(o);
  let stalled = 0;
  let signalled = 0;
  let timedOut = 0;
  try {
    for (let round = 1; round <= rounds; round++) {
      const offset = offsets[(round - 1) % offsets.length]!;
      const handle = await env.client.workflow.start(timerCancelAfterFire, { taskQueue, workflowId: `timer-cancel-${process.pid}-${round}` });
      // The timer's due time on the server's clock.
      let startedAt: number | undefined;
      while (startedAt === undefined) {
        const events = (await handle.fetchHistory()).events ?? [];
        const started = events.find((e) => e.timerStartedEventAttributes);
        if (started) startedAt = ms(started.eventTime);
        else await sleep(2);
      }
      await sleep(startedAt + TIMER_MS + offset - (await env.currentTimeMs()));
      await handle.signal(goSignal, work);
      // The signal's workflow task is done when a WorkflowTaskCompleted follows the signal in the history.
      const taskDone = async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const signalAt = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
        return signalAt >= 0 && events.slice(signalAt).some((e) => e.workflowTaskCompletedEventAttributes);
      };
      const deadline = Date.now() + STALL_MS;
      let done = await taskDone();
      while (!done && Date.now() < deadline) {
        await sleep(50);
        done = await taskDone();
      }
      if (done) {
        await handle.signal(finishSignal);
        // result() unlocks time skipping, which changes nothing here: the run has no timer left.
        const outcome = await handle.result();
        if (outcome === 'signalled') signalled++;
        else timedOut++;
        console.log(`round ${round}: offset ${offset >= 0 ? '+' : ''}${offset} ms: ${outcome}`);
        continue;
      }
      stalled++;
      const events = (await handle.fetchHistory()).events ?? [];
      console.log(
        `round ${round}: offset ${offset >= 0 ? '+' : ''}${offset} ms: STALLED (the signal's workflow task not completed ${STALL_MS / 1000} s later)`,
      );
      console.log(`  history: ${events.map((e) => EVENT_NAMES[Number(e.eventType)] ?? `event type ${e.eventType}`).join(' -> ')}`);
      const refused = warnings.filter((w) => `${w.message} ${JSON.stringify(w.meta ?? {})}`.includes('invalid history builder state'));
      for (const w of refused.slice(-1)) console.log(`  worker: ${w.level} ${w.message} ${JSON.stringify(w.meta ?? {})}`);
      await handle.terminate('stalled: timer-cancel-after-fire reproduction');
      if (!all) {
        console.log(`stalled in round ${round} of ${round}`);
        break;
      }
    }
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
  }
  console.log(`stalled ${stalled}, signalled ${signalled}, timed out ${timedOut}`);
  return stalled > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
