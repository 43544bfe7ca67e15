/**
 * F3: MCP server faults. Each ends in bounded time with a clear outcome, and no MCP server process outlives it.
 *  F3a --crash-on-start      → retried (McpServerUnavailable is retryable), then the workflow fails with an
 *                              ApplicationFailure naming the server and quoting its stderr.
 *  F3b --hang-on-start, timeout 1000 → each attempt times out after 1 s (the hung process is ended), then
 *                              the workflow fails naming the server.
 *  F3c SIGKILL of the MCP server while its request is pending → the attempt fails, the retry asks again
 *                              under the same request id (attached, not asked twice), the answer completes it.
 *  F3d garbage on stdout, then a working server → garbage lines are skipped, the call completes.
 *  F3e garbage on stdout, then exit → like a crash on start.
 * In --sample mode the retried failures (a, b, e) are checked on their second attempt (clear lastFailure,
 * maximumAttempts 10 bounds them) and then terminated; the full suite waits for the final failure (~2.5 min).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';
import { livePids } from '../../scripts/processes.js';
import { waitForPending, watchPending } from '../helpers/watch.js';
import { describePid, fixtureEntry, isAlive, secs, sleep, taggedPids, until, within, type FixtureOptions } from './lib.js';
import { activityOutcomes, causeChain, inProcessWorker, workflowTaskFailures, type CaseContext, type FaultCase } from './suite.js';

const garbageServerPath = fileURLToPath(new URL('./garbage-server.js', import.meta.url));
const HOLD = 30 * 60 * 1000;

async function setup(ctx: CaseContext, server: string, opts: FixtureOptions = {}) {
  const logPath = join(ctx.dir, 'fixture.jsonl');
  const taskQueue = `faults-${ctx.id}-${process.pid}-${Date.now()}`;
  // Registered before the worker, so it runs after the worker has shut down: no MCP server process of this
  // case may outlive it (pids from the fixture log, and any process of the script carrying the case tag).
  const script = opts.script ?? fixtureServerPath;
  const before = livePids(script).length;
  ctx.defer(async () => {
    const ours = new Set(readFixtureLog(logPath).map((e) => e.pid as number));
    const mine = () => livePids(script).filter((p) => ours.has(p) || describePid(p).includes(ctx.tag));
    const left = await until(() => mine().length === 0, 'no MCP server process of this case left', 10_000).then(
      () => [],
      () => mine(),
    );
    ctx.note(
      `MCP server processes: ${ours.size} logged pid(s); after the case ${left.length} alive (${livePids(script).length} of the script system-wide, ${before} before)`,
    );
    assert.deepEqual(left.map(describePid), [], 'no orphaned MCP server process');
  });
  await inProcessWorker(ctx, taskQueue, { mcpServers: { [server]: fixtureEntry(server, ctx.tag, logPath, opts) } });
  const { client } = await ctx.shared();
  const start = (tool: string, args: Record<string, unknown> = {}) =>
    client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `${ctx.id}-${ctx.seed}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
      args: [{ server, tool, arguments: args, elicitation: { holdFor: HOLD }, heartbeatTimeout: 2500 }],
    });
  return { logPath, start };
}

/** Samples the number of live processes of this case, to show that failed attempts never pile up. */
function processMonitor(ctx: CaseContext) {
  let max = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      max = Math.max(max, taggedPids(ctx.tag).length);
      await sleep(100);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return max;
    },
  };
}

/**
 * A call that fails on every attempt: full mode waits for the workflow to fail and checks the message;
 * sample mode checks the first failure of a retried activity, that the retries are bounded, then terminates.
 */
async function expectRetriedFailure(ctx: CaseContext, handle: WorkflowHandle, server: string, detail: RegExp): Promise<string> {
  const t0 = Date.now();
  const named = new RegExp(`server "${server}"`);
  if (ctx.sample) {
    const act = await until(
      async () => {
        const a = (await handle.describe()).raw.pendingActivities?.[0];
        return a && (a.attempt ?? 0) >= 2 && a.lastFailure?.message ? a : undefined;
      },
      'a failed first attempt and a scheduled retry',
      60_000,
    );
    const message = act.lastFailure!.message!;
    assert.match(message, named, 'the failure names the server');
    assert.match(message, detail, 'the failure says what went wrong');
    assert.equal(act.maximumAttempts, 10, 'the retries are bounded (maximumAttempts 10)');
    await handle.terminate('fault suite (sample): retried failure observed');
    return `attempt 1 failed after ${secs(Date.now() - t0)} with "${message.slice(0, 160)}"; retried (attempt ${act.attempt} of at most ${act.maximumAttempts}), then terminated (sample mode)`;
  }
  const err = await within(
    handle.result().then(
      () => undefined,
      (e: unknown) => e,
    ),
    240_000,
    'the workflow fails after its bounded retries',
  );
  assert.ok(err instanceof WorkflowFailedError, `the workflow failed: ${String(err)}`);
  const activity = err.cause;
  assert.ok(activity instanceof ActivityFailure, `caused by the activity: ${causeChain(err).join(' <- ')}`);
  assert.equal(activity.retryState, RetryState.MAXIMUM_ATTEMPTS_REACHED, 'after the maximum attempts');
  const app = activity.cause;
  assert.ok(app instanceof ApplicationFailure, `an ApplicationFailure: ${causeChain(err).join(' <- ')}`);
  assert.match(app.message, named, 'the failure names the server');
  assert.match(app.message, detail, 'the failure says what went wrong');
  const events = (await handle.fetchHistory()).events ?? [];
  const attempts = Math.max(...events.map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0));
  return `workflow failed after ${attempts} attempts in ${secs(Date.now() - t0)}: ApplicationFailure(${app.type}) "${app.message.slice(0, 160)}"`;
}

const crashOnStart: FaultCase = {
  id: 'F3a',
  group: 'F3',
  title: 'MCP server crashes on start',
  timeoutMs: (sample) => (sample ? 90_000 : 300_000),
  async run(ctx) {
    const { start } = await setup(ctx, 'crashy', { args: ['--crash-on-start'] });
    const mon = processMonitor(ctx);
    const out = await expectRetriedFailure(ctx, await start('echo', { text: 'x' }), 'crashy', /crash on start/);
    ctx.note(`at most ${await mon.stop()} process(es) of this case alive at once`);
    return `workflow fails with an ApplicationFailure naming the server — ${out}`;
  },
};

const hangOnStart: FaultCase = {
  id: 'F3b',
  group: 'F3',
  title: 'MCP server hangs on start (timeout 1000 ms)',
  timeoutMs: (sample) => (sample ? 90_000 : 300_000),
  async run(ctx) {
    const { start } = await setup(ctx, 'hangs', { args: ['--hang-on-start'], extra: { timeout: 1000 } });
    const mon = processMonitor(ctx);
    const out = await expectRetriedFailure(ctx, await start('echo', { text: 'x' }), 'hangs', /timed out after 1000 ms/);
    const max = await mon.stop();
    ctx.note(`at most ${max} hung process(es) of this case alive at once (each timed-out attempt ends its process)`);
    assert.ok(max <= 2, `hung processes do not pile up (max ${max} at once)`);
    return `workflow fails with an ApplicationFailure naming the server — ${out}`;
  },
};

const crashMidElicitation: FaultCase = {
  id: 'F3c',
  group: 'F3',
  title: 'MCP server SIGKILLed while its request is pending',
  timeoutMs: () => 90_000,
  async run(ctx) {
    const { logPath, start } = await setup(ctx, 'fx');
    // Two calls: one answered after the retry asked again, one answered while no MCP server process exists.
    const run = async (label: string, answerEarly: boolean) => {
      const askedSince = (mark: number) =>
        readFixtureLog(logPath)
          .slice(mark)
          .find((e) => e.event === 'asked');
      const mark = readFixtureLog(logPath).length;
      const handle = await start('ask_name');
      const watch = watchPending(handle, 100);
      ctx.defer(() => watch.end());
      const [req] = await waitForPending(handle, 1, 30_000);
      const asked = await until(() => askedSince(mark), 'the asked event', 15_000);
      const pid = asked.pid as number;
      const mark2 = readFixtureLog(logPath).length;
      process.kill(pid, 'SIGKILL');
      await until(() => !isAlive(pid), `fixture ${pid} dead`, 10_000);
      const t0 = Date.now();
      if (!answerEarly) {
        // Observed behaviour: the closed connection aborts the server's pending elicitation, so the activity
        // releases the call (as when a server gives up): no activity runs, the request stays pending.
        await until(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'the call released after the kill', 30_000);
        const p = await handle.query(pendingQuery);
        assert.deepEqual(
          p.map((q) => q.id),
          [req.id],
          'the request is still pending after the MCP server died',
        );
      }
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: req.id, ok: true, data: { name: label } }] });
      const result = await within(handle.result(), 60_000, `${label} completes`);
      assert.deepEqual(result, { output: `hello ${label}`, isError: false });
      const seen = await watch.stop();
      seen.set(req.id, req);
      assert.deepEqual([...seen.keys()], [req.id], `${label}: one request id ever`);
      // The re-run asked again from a new process and was answered from the record.
      const after = readFixtureLog(logPath).slice(mark2);
      const reasked = after.find((e) => e.event === 'asked');
      const received = after.filter((e) => e.event === 'received');
      assert.ok(reasked && reasked.pid !== pid, 'the re-run asked from a new MCP server process');
      assert.deepEqual(
        received.map((e) => e.result),
        [{ action: 'accept', content: { name: label } }],
        'the new process received the answer',
      );
      const outcomes = await activityOutcomes(handle);
      assert.deepEqual(await workflowTaskFailures(handle), []);
      if (!answerEarly) assert.match(outcomes[0] ?? '', /^released/, 'the first attempt released the call');
      return `${label}: killed pid ${pid} while request ${req.id} was pending; ${answerEarly ? 'answered at once' : 'answered after the release'}; completed ${secs(Date.now() - t0)} after the kill; activity outcomes: ${outcomes.join(', ')}`;
    };
    // Sequential, so that each kill targets the process serving that call.
    const a = await run('late', false);
    const b = await run('early', true);
    ctx.note(a);
    ctx.note(b);
    return 'the call is released (the dead server counts as giving up), the request stays pending, and the answer completes it: the re-run asks a new process, answered from the record';
  },
};

const garbageThenBehave: FaultCase = {
  id: 'F3d',
  group: 'F3',
  title: 'MCP server writes garbage to stdout, then behaves',
  timeoutMs: () => 90_000,
  async run(ctx) {
    const { logPath, start } = await setup(ctx, 'noisy', { script: garbageServerPath, args: ['--garbage-then-behave', '--garbage-every', '50'] });
    const handle = await start('ask_name');
    const [req] = await waitForPending(handle, 1, 30_000);
    await sleep(300); // garbage lines keep flowing while the request waits
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: req.id, ok: true, data: { name: 'Noisy' } }] });
    const result = await within(handle.result(), 60_000, 'the call completes');
    assert.deepEqual(result, { output: 'hello Noisy', isError: false });
    const events = (await handle.fetchHistory()).events ?? [];
    const attempts = Math.max(...events.map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0));
    const log = readFixtureLog(logPath);
    assert.ok(
      log.some((e) => e.event === 'garbage'),
      'the server did write garbage',
    );
    return `garbage lines (non-JSON, non-JSON-RPC, unknown response ids) are skipped; the call completed (activity attempts: ${attempts})`;
  },
};

const garbageThenExit: FaultCase = {
  id: 'F3e',
  group: 'F3',
  title: 'MCP server writes garbage to stdout, then exits',
  timeoutMs: (sample) => (sample ? 90_000 : 300_000),
  async run(ctx) {
    const { start } = await setup(ctx, 'garbled', { script: garbageServerPath, args: ['--garbage-then-exit'] });
    const out = await expectRetriedFailure(ctx, await start('echo', { text: 'x' }), 'garbled', /failed to connect|closed/i);
    return `workflow fails with an ApplicationFailure naming the server — ${out}`;
  },
};

export const f3Cases: FaultCase[] = [crashOnStart, hangOnStart, crashMidElicitation, garbageThenBehave, garbageThenExit];
