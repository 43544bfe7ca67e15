/**
 * The slots that keep a workflow under Temporal's limit on updates in flight (history.maxInFlightUpdates, 10). Past
 * it, Temporal 1.32 refuses the update and drops the run's cached state, aborting every update in flight on the run
 * and failing the queries buffered for it (scripts/upstream/update-limit-clears-run.ts). End to end, on a real dev
 * server whose metrics count refused and aborted updates: test/workflows/hostile.test.ts (15 elicitations at once: 6
 * refusals and 26 aborts before the slots) and the OAuth refresh race in test/workflows/oauth.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpdateSlots, ELICIT_UPDATES_PER_RUN } from '../../src/activities/update-slots.js';

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
