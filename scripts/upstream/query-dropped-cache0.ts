#!/usr/bin/env node
/**
 * Minimal reproduction, for temporalio/sdk-core (see scripts/upstream/UPSTREAM.md): with
 * `maxCachedWorkflows: 0`, Temporal Core drops query tasks that were buffered while a run was being
 * evicted, logs "There were leftover buffered tasks when evicting run", and the client's query never gets
 * an answer (it fails at its deadline).
 *
 * Uses only @temporalio/* packages and a local dev server (the Temporal CLI): `$TEMPORAL_CLI_PATH`, else
 * `.tools/temporal/bin/temporal` of this repository (`npm run tools`), else `temporal` on PATH.
 *
 *   npm run build && node dist/scripts/upstream/query-dropped-cache0.js [--rounds 20] [--concurrency 4]
 *                                                                     [--cache 0] [--deadline-ms 10000] [--signals]
 *
 * One workflow waits for a signal and answers a `state` query. Each round sends `--concurrency` queries at
 * once to it and waits for all of them (each bounded by `--deadline-ms`); `--signals` also sends a signal in
 * every round, so a real workflow task competes with the queries. Prints each round, then the totals, and
 * exits 1 when any query got no answer (the bug), 0 when every query was answered.
 * `--cache 10` is the control: the same load with a workflow cache answers every query.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type LogEntry } from '@temporalio/worker';
import { bumpSignal, finishSignal, queried, stateQuery } from './query-dropped-cache0-workflow.js';
import { temporalCli } from './dev-server.js';

const argv = process.argv.slice(2);
const num = (name: string, dflt: number): number => {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(argv[i + 1])}`);
  return v;
};
const rounds = num('--rounds', 20);
const concurrency = num('--concurrency', 4);
const cache = num('--cache', 0);
const deadlineMs = num('--deadline-ms', 10_000);
const signals = argv.includes('--signals');

const here = dirname(fileURLToPath(import.meta.url));

// Core's warnings, forwarded to this process.
const CORE_LINE = 'There were leftover buffered tasks when evicting run';
const warnings: LogEntry[] = [];
Runtime.install({
  logger: new DefaultLogger('WARN', (entry) => warnings.push(entry)),
  telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  shutdownSignals: [],
});
const coreDrops = () => warnings.filter((w) => w.message.includes(CORE_LINE)).length;

async function main(): Promise<number> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCli() }, log: { format: 'pretty', level: 'error' } },
  });
  const taskQueue = `query-dropped-cache0-${process.pid}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: join(here, 'query-dropped-cache0-workflow.js'),
    maxCachedWorkflows: cache,
  });
  const running = worker.run();
  let unanswered = 0;
  let answered = 0;
  let wftTimeouts = 0;
  try {
    const handle = await env.client.workflow.start(queried, { taskQueue, workflowId: `queried-${Date.now()}` });
    // The first workflow task: the query handler is registered once the workflow has run once.
    for (let ok = false; !ok;) ok = (await env.client.connection.withDeadline(Date.now() + deadlineMs, () => handle.query(stateQuery)).catch(() => -1)) >= 0;
    console.log(
      `@temporalio/worker ${workerVersion()}, maxCachedWorkflows ${cache}, ${rounds} round(s) of ${concurrency} concurrent queries${signals ? ' and one signal' : ''}, query deadline ${deadlineMs} ms`,
    );
    for (let round = 1; round <= rounds; round++) {
      const before = coreDrops();
      const t0 = Date.now();
      const queries = Array.from({ length: concurrency }, () =>
        env.client.connection
          .withDeadline(Date.now() + deadlineMs, () => handle.query(stateQuery))
          .then(
            () => 'ok' as const,
            (err: Error) => `${err.name}: ${err.message.split('\n')[0]}`,
          ),
      );
      if (signals) await handle.signal(bumpSignal);
      const outcomes = await Promise.all(queries);
      const failed = outcomes.filter((o) => o !== 'ok');
      answered += outcomes.length - failed.length;
      unanswered += failed.length;
      const lines = coreDrops() - before;
      console.log(
        `round ${round}: ${outcomes.length - failed.length}/${outcomes.length} answered in ${Date.now() - t0} ms; Core logged "${CORE_LINE}" ${lines}x` +
          (failed.length ? `; unanswered: ${[...new Set(failed)].join(' | ')}` : ''),
      );
    }
    await handle.signal(finishSignal);
    await handle.result();
    // A dropped task that was a real workflow task (a signal's) is not lost for good: the server times it out
    // (the workflow task timeout, 10 s by default) and schedules it again. The history shows each one.
    const history = await handle.fetchHistory();
    wftTimeouts = (history.events ?? []).filter((e) => e.workflowTaskTimedOutEventAttributes).length;
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
  }
  const total = answered + unanswered;
  console.log(
    `total: ${answered}/${total} queries answered, ${unanswered} unanswered (${((100 * unanswered) / Math.max(1, total)).toFixed(1)}%); Core logged "${CORE_LINE}" ${coreDrops()}x; workflow tasks timed out (dropped) in the history: ${wftTimeouts}`,
  );
  console.log(unanswered ? 'REPRODUCED: queries were dropped' : 'not reproduced: every query was answered');
  return unanswered ? 1 : 0;
}

function workerVersion(): string {
  // The package's own package.json, next to its lib folder.
  const pkg = join(dirname(fileURLToPath(import.meta.resolve('@temporalio/worker'))), '..', 'package.json');
  return existsSync(pkg) ? (JSON.parse(readFileSync(pkg, 'utf8')).version as string) : '?';
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
