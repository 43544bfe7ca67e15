#!/usr/bin/env node
/**
 * Reproduction, for temporalio/sdk-typescript (see scripts/upstream/UPSTREAM.md, "a watchdog thread for every call
 * into a workflow's V8 context"): the worker passes `timeout: isolateExecutionTimeoutMs` to every `runInContext` into
 * a workflow's context (several per workflow task), and Node starts and joins a watchdog thread for each call that has
 * a timeout. That costs tens of microseconds a call, against one or two without a timeout.
 *
 * Uses only @temporalio/* packages, node:vm and a local dev server (the Temporal CLI: `$TEMPORAL_CLI_PATH`, else
 * `.tools/temporal/bin/temporal` of this repository, else `temporal` on PATH).
 *
 *   npm run build && node dist/scripts/upstream/vm-timeout-watchdog.js [--signals 200]
 *
 * 1. node:vm alone: the same trivial script run in a context with and without `timeout`, µs per call.
 * 2. A worker in `debugMode` (workflows in this thread, so node:vm can be observed here; the threaded default passes
 *    the same option): one workflow takes `--signals` signals one at a time, a workflow task each; every `runInContext`
 *    is counted, with and without a timeout. Prints the calls per workflow task and what their timeouts cost at the
 *    measured µs. Exits 1 while calls into the workflow context carry a timeout, 0 when none does.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { bumpSignal, finishSignal, queried } from './query-dropped-cache0-workflow.js';
import { temporalCli } from './dev-server.js';

const argv = process.argv.slice(2);
const at = argv.indexOf('--signals');
const signals = at < 0 ? 200 : Number(argv[at + 1]);
if (!Number.isInteger(signals) || signals < 1) throw new Error(`--signals must be a positive integer, got ${JSON.stringify(argv[at + 1])}`);

const here = dirname(fileURLToPath(import.meta.url));
/** µs per `runInContext` of a trivial script, with these options. */
function microsPerCall(options: vm.RunningScriptOptions): number {
  const context = vm.createContext({ n: 0 });
  const script = new vm.Script('n++');
  const n = 20_000;
  for (let i = 0; i < 1_000; i++) script.runInContext(context, options);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) script.runInContext(context, options);
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;
}

/** Counts every call into a context (Script#runInContext and vm.runInContext), by whether it carries a timeout. */
const calls = { timeout: 0, none: 0 };
const count = (options: unknown) => {
  if (options && typeof options === 'object' && typeof (options as { timeout?: unknown }).timeout === 'number') calls.timeout++;
  else calls.none++;
};
const scriptRun = vm.Script.prototype.runInContext;
vm.Script.prototype.runInContext = function (this: vm.Script, context: vm.Context, options?: vm.RunningScriptOptions) {
  count(options);
  return scriptRun.call(this, context, options);
};
const codeRun = vm.runInContext;
(vm as { runInContext: typeof vm.runInContext }).runInContext = (code: string, context: vm.Context, options?: vm.RunningCodeOptions | string) => {
  count(options);
  return codeRun(code, context, options);
};

Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });

async function main(): Promise<number> {
  const without = microsPerCall({});
  const withTimeout = microsPerCall({ timeout: 5_000 });
  console.log(
    `node ${process.version}: runInContext of a trivial script: ${without.toFixed(2)} µs without a timeout, ${withTimeout.toFixed(2)} µs with timeout 5000`,
  );

  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCli() }, log: { format: 'pretty', level: 'error' } },
  });
  const taskQueue = `vm-timeout-watchdog-${process.pid}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: join(here, 'query-dropped-cache0-workflow.js'),
    debugMode: true,
  });
  let tasks = 0;
  let during = { timeout: 0, none: 0 };
  try {
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(queried, { taskQueue, workflowId: `vm-timeout-watchdog-${Date.now()}` });
      const completedTasks = async () => ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).length;
      const completed = async (n: number) => {
        while ((await completedTasks()) < n) await new Promise((r) => setTimeout(r, 5));
      };
      await completed(1);
      const before = { ...calls };
      // One workflow task per signal: each waits until the previous task is completed.
      for (let i = 0; i < signals; i++) {
        await handle.signal(bumpSignal);
        await completed(i + 2);
      }
      during = { timeout: calls.timeout - before.timeout, none: calls.none - before.none };
      tasks = (await completedTasks()) - 1;
      await handle.signal(finishSignal);
      await handle.result();
    });
  } finally {
    await env.teardown();
  }
  const perTask = during.timeout / Math.max(1, tasks);
  console.log(
    `worker (debugMode) over ${tasks} workflow tasks: ${during.timeout} calls into the workflow context with a timeout, ${during.none} without: ` +
      `${perTask.toFixed(1)} per task, so about ${(perTask * (withTimeout - without)).toFixed(0)} µs of watchdog threads per workflow task`,
  );
  console.log(during.timeout > 0 ? 'REPRODUCED: every call into the workflow context starts a watchdog thread' : 'not reproduced: no call carried a timeout');
  return during.timeout > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
