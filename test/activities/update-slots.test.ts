/**
 * A call's elicitations keep a run under Temporal's limit on updates in flight (history.maxInFlightUpdates, 10). Past
 * it, Temporal 1.32 refuses the update and drops the run's cached state, aborting every update in flight on the run
 * and failing the queries buffered for it (scripts/upstream/update-limit-clears-run.ts). The integration test reads the
 * dev server's own metrics: before the slots, 15 elicitations at once drew 10 refusals and about 50 aborts in a run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { UpdateSlots, ELICIT_UPDATES_PER_RUN } from '../../src/activities/update-slots.js';
import type { DurableMcpWorker } from '../../src/worker.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { hostileServerPath } from '../fixtures/paths.js';
import { metricsFlags, updateErrors } from '../helpers/server-metrics.js';
import { createLocalEnv, fixtureConfig, startWorker, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';

describe('update slots per workflow', () => {
  it('hands out at most perRun slots of a run; a freed slot goes to the next waiter; other runs are not held up', async () => {
    const slots = new UpdateSlots(2);
    const never = new AbortController().signal;
    const a = await slots.acquire('wf', 'r1', never);
    const b = await slots.acquire('wf', 'r1', never);
    let third = undefined as (() => void) | undefined;
    const waiting = slots.acquire('wf', 'r1', never).then((free) => (third = free));
    const other = await slots.acquire('wf', 'r2', never);
    assert.ok(a && b && other, 'free slots are handed out at once');
    await new Promise((r) => setImmediate(r));
    const early = third;
    assert.equal(early, undefined, 'the third waits');
    assert.deepEqual(slots.usage('wf', 'r1'), { busy: 2, waiting: 1 });
    a();
    a(); // a second call of the same release frees nothing more
    await waiting;
    assert.ok(third, 'the freed slot went to the waiter');
    assert.deepEqual(slots.usage('wf', 'r1'), { busy: 2, waiting: 0 });
    b();
    third!();
    other();
    assert.deepEqual(slots.usage('wf', 'r1'), { busy: 0, waiting: 0 });
  });

  it('a wait whose signal aborts resolves with nothing and gives its turn up', async () => {
    const slots = new UpdateSlots(1);
    const held = await slots.acquire('wf', 'r', new AbortController().signal);
    const gone = new AbortController();
    const abandoned = slots.acquire('wf', 'r', gone.signal);
    const next = slots.acquire('wf', 'r', new AbortController().signal);
    gone.abort();
    assert.equal(await abandoned, undefined);
    held!();
    assert.ok(await next, 'the slot skipped the abandoned wait');
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(await slots.acquire('wf', 'other', aborted.signal), undefined, 'an aborted signal gets nothing');
  });

  it('refuses a perRun that is not a whole number of at least 1, naming it', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => new UpdateSlots(bad), /perRun must be a whole number of at least 1, got/);
    assert.equal(new UpdateSlots().perRun, ELICIT_UPDATES_PER_RUN);
  });
});

describe('15 elicitations at once in one call, on a real dev server', () => {
  let env: TestWorkflowEnvironment;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  let metricsPort: number;
  const taskQueue = uniqueTaskQueue('slots');
  before(async () => {
    const metrics = await metricsFlags();
    metricsPort = metrics.port;
    env = await createLocalEnv({ serverArgs: metrics.serverArgs });
    worker = await startWorker(env, {
      taskQueue,
      mcpConfig: fixtureConfig(join(tempDir(), 'fx.jsonl'), { hostile: { command: [process.execPath, hostileServerPath] } }),
    });
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('are all answered, and Temporal never refuses or aborts an update of the run', async () => {
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `slots-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'hostile', tool: 'many_at_once' }],
    });
    const answered = new Set<string>();
    while (answered.size < 15) {
      const pending = await handle.query(pendingQuery);
      for (const r of pending.filter((p) => !answered.has(p.id))) {
        const n = Number(/Question (\d+)\?/.exec(r.prompt)![1]);
        await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: r.id, ok: true, data: { n } }] });
        answered.add(r.id);
      }
      if (pending.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    const result = await handle.result();
    assert.equal(result.isError, false, result.output);
    assert.deepEqual(
      result.output.split('\n'),
      Array.from({ length: 15 }, (_, i) => `accept {"n":${i + 1}}`),
    );
    assert.deepEqual(await updateErrors(metricsPort), {}, 'updates refused (ResourceExhausted) or aborted (Unavailable) by the server');
  });
});
