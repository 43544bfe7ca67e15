#!/usr/bin/env node
/**
 * Minimal reproduction, for temporalio/sdk-core (see scripts/upstream/UPSTREAM.md): a worker that shuts down
 * gracefully can take a workflow task from its sticky queue during shutdown and never complete it; the server
 * gives the task to another worker only when it times out (start-to-close, the workflow task timeout, 10 s),
 * and an update sent meanwhile waits behind it.
 *
 * Uses only @temporalio/* packages and a local dev server (the Temporal CLI): `$TEMPORAL_CLI_PATH`, else
 * `.tools/temporal/bin/temporal` of this repository (`npm run tools`), else `temporal` on PATH.
 *
 *   npm run build && node dist/scripts/upstream/wft-lost-at-shutdown.js [--rounds 20]
 *
 * Each round: a worker runs the workflow, whose activity returns as soon as the worker starts shutting down
 * (as an activity that only holds a connection does); the worker shuts down and its run() resolves; a new
 * worker starts on the same task queue; the client sends the `finish` update and measures how long it takes.
 * Prints each round and, for slow ones, the workflow task events; exits 1 when any round saw a workflow task
 * time out (the bug), 0 otherwise.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { finishUpdate, releasedAtShutdown } from './wft-lost-at-shutdown-workflow.js';
import { temporalCli } from './dev-server.js';

const argv = process.argv.slice(2);
const i = argv.indexOf('--rounds');
const rounds = i < 0 ? 20 : Number(argv[i + 1]);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number above 0, got ${JSON.stringify(argv[i + 1])}`);

const here = dirname(fileURLToPath(import.meta.url));
const TIMEOUT_TYPES: Record<number, string> = { 1: 'START_TO_CLOSE', 2: 'SCHEDULE_TO_START', 3: 'SCHEDULE_TO_CLOSE', 4: 'HEARTBEAT' };

Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });

async function main(): Promise<number> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCli() }, log: { format: 'pretty', level: 'error' } },
  });
  const taskQueue = `wft-lost-at-shutdown-${process.pid}`;
  let shuttingDown: () => void = () => {};
  let n = 0;
  const newWorker = async () => {
    const identity = `worker-${++n}`;
    const stopping = new Promise<string>((res) => (shuttingDown = () => res('released at shutdown')));
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: join(here, 'wft-lost-at-shutdown-workflow.js'),
      activities: { held: () => stopping },
      identity,
    });
    return { worker, identity, running: worker.run() };
  };
  let current = await newWorker();
  let lost = 0;
  try {
    for (let round = 1; round <= rounds; round++) {
      const handle = await env.client.workflow.start(releasedAtShutdown, { taskQueue, workflowId: `released-${process.pid}-${round}` });
      // Wait until the activity runs on the current worker.
      while (!((await handle.describe()).raw.pendingActivities ?? []).some((a) => String(a.state) === 'PENDING_ACTIVITY_STATE_STARTED' || a.state === 2)) {
        await new Promise((r) => setTimeout(r, 50));
      }
      // Shut the worker down the way a graceful stop does: the held activity returns, the worker drains.
      shuttingDown();
      current.worker.shutdown();
      await current.running;
      const stopped = current.identity;
      current = await newWorker();
      const t0 = Date.now();
      await handle.executeUpdate(finishUpdate);
      const ms = Date.now() - t0;
      await handle.result();
      const events = (await handle.fetchHistory()).events ?? [];
      const timedOut = events.filter((e) => e.workflowTaskTimedOutEventAttributes);
      if (timedOut.length) lost++;
      const described = timedOut.map((e) => {
        const a = e.workflowTaskTimedOutEventAttributes!;
        const started = events.find((x) => Number(x.eventId) === Number(a.startedEventId))?.workflowTaskStartedEventAttributes;
        const scheduled = events.find((x) => Number(x.eventId) === Number(a.scheduledEventId))?.workflowTaskScheduledEventAttributes;
        const kind = scheduled?.taskQueue?.kind === 2 ? 'sticky' : 'normal';
        return `${TIMEOUT_TYPES[Number(a.timeoutType)] ?? a.timeoutType} of a task scheduled on the ${kind} queue, started by ${started?.identity} (${started?.identity === stopped ? 'the stopped worker' : 'another worker'})`;
      });
      console.log(`round ${round}: update took ${ms} ms; workflow tasks timed out: ${described.join('; ') || 'none'}`);
    }
  } finally {
    current.worker.shutdown();
    await current.running;
    await env.teardown();
  }
  console.log(`${lost} of ${rounds} rounds lost a workflow task at shutdown (it timed out on the stopped worker)`);
  return lost ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
