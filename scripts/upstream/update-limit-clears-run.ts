#!/usr/bin/env node
/**
 * Minimal reproduction, for temporalio/temporal (see scripts/upstream/UPSTREAM.md): when an update is refused because
 * the run already has `history.maxInFlightUpdates` (default 10) updates in flight, the history service also drops the
 * run's cached state: every update admitted on the run is aborted ("workflow update was aborted", Unavailable, retried
 * by the server or the client), the speculative workflow task a worker holds is lost ("Workflow task not found" when
 * it completes), and queries buffered for the run are failed ("buffered query cleared"). The refusal of one update
 * should cost that one update.
 *
 * Uses only @temporalio/* packages and a local dev server (the Temporal CLI): `$TEMPORAL_CLI_PATH`, else
 * `.tools/temporal/bin/temporal` of this repository (`npm run tools`), else `temporal` on PATH.
 *
 *   npm run build && node dist/scripts/upstream/update-limit-clears-run.js [--control]
 *
 * A workflow whose `hold` update waits for a signal. The first `hold` update's workflow task is on the worker (its
 * validator takes about a second) while nine more are admitted: ten in flight. Then an eleventh comes, and is refused
 * with ResourceExhausted, as documented. The script reads the dev server's metrics: how many UpdateWorkflowExecution
 * calls the history service answered with Unavailable (each an aborted update, retried). Then the signal opens the
 * holds, and every update returns. Exits 1 when the refusal aborted other updates (the bug), 0 when it did not.
 * `--control` sends no eleventh update: nothing is aborted.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowUpdateStage } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { holding, holdUpdate, openSignal } from './update-limit-clears-run-workflow.js';
import { freePort, temporalCli } from './dev-server.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The server's count of history-service UpdateWorkflowExecution errors, by error type. */
async function updateErrors(metricsPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^client_errors\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !m[1]!.includes('operation="HistoryClientUpdateWorkflowExecution"')) continue;
    const type = /error_type="([^"]+)"/.exec(m[1]!)?.[1] ?? '?';
    out[type] = (out[type] ?? 0) + Number(m[2]);
  }
  return out;
}

// --control: the same without the eleventh update (no update is aborted then).
const control = process.argv.includes('--control');

Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });

async function main(): Promise<number> {
  const metricsPort = await freePort();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCli() },
      log: { format: 'pretty', level: 'error' },
      extraArgs: ['--metrics-port', String(metricsPort)],
    },
  });
  const taskQueue = `update-limit-${process.pid}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: join(here, 'update-limit-clears-run-workflow.js'),
  });
  try {
    return await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(holding, { taskQueue, workflowId: `holding-${Date.now()}` });
      await handle.query('__stack_trace').catch(() => undefined); // the first workflow task has run
      const before = await updateErrors(metricsPort);
      // hold-0's workflow task is on the worker (its validator counts to 4e8, about a second) while hold-1..9 are admitted: ten in
      // flight. Then hold-10 comes, and is refused (ResourceExhausted, as documented).
      const held = [handle.startUpdate(holdUpdate, { args: [0, 400_000_000], updateId: 'hold-0', waitForStage: WorkflowUpdateStage.ACCEPTED })];
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 1; i < 10; i++) held.push(handle.startUpdate(holdUpdate, { args: [i], updateId: `hold-${i}`, waitForStage: WorkflowUpdateStage.ACCEPTED }));
      await new Promise((r) => setTimeout(r, 200));
      const refused = control
        ? 'not sent (--control)'
        : await env.client.connection
            .withDeadline(Date.now() + 300, () => handle.executeUpdate(holdUpdate, { args: [10], updateId: 'hold-10' }))
            .then(
              () => 'accepted',
              (err: Error) => `${err.name}: ${(err.cause as Error | undefined)?.message ?? err.message}`,
            );
      const handles = await Promise.all(held);
      const after = await updateErrors(metricsPort);
      const aborted = (after.serviceerror_Unavailable ?? 0) - (before.serviceerror_Unavailable ?? 0);
      console.log(`the eleventh update: ${refused}`);
      console.log(`UpdateWorkflowExecution errors in the history service: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
      console.log(`updates aborted (Unavailable, then retried) once the eleventh came: ${aborted} (expected 0)`);
      await handle.signal(openSignal);
      const results = await Promise.all(handles.map((h) => h.result()));
      console.log(`the ten held updates returned: ${results.length}`);
      await handle.terminate('done');
      return aborted > 0 ? 1 : 0;
    });
  } finally {
    await env.teardown();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
