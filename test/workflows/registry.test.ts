// The request registry (src/workflows/host/registry.ts), the gates' call waits (src/gates/call-waits.ts) and N of M's
// count (src/gates/approval/accepts.ts) without a Temporal server: pure state, its own clock.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { Request } from '../../src/contract/index.js';
import {
  DEFAULT_EXPIRES_IN_MS,
  DEFAULT_HOLD_FOR_MS,
  FINISHED_REMEMBERED,
  RequestRegistry,
  answerId,
  cut,
  expiresAtOf,
} from '../../src/workflows/host/registry.js';
import { requestOutcomeOf } from '../../src/contract/outcome.js';
import { ARGUMENTS_SHOWN } from '../../src/workflows/messages.js';
import { weaker, type SenderRecord } from '../../src/workflows/host/sender.js';
import { countAccept } from '../../src/gates/approval/accepts.js';
import { CallWaits } from '../../src/gates/call-waits.js';
import { CallProgressBoard } from '../../src/workflows/host/progress.js';
import { APPROVAL_ARGUMENTS_MAX } from '../../src/contract/tool-arguments.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
function registry(): { r: RequestRegistry; clock: { now: number } } {
  const clock = { now: T0 };
  return { r: new RequestRegistry(() => clock.now), clock };
}
const input = (id: string, prompt = 'Your name?'): Request => ({
  id,
  kind: 'input',
  prompt,
  data: { schema: { type: 'object', properties: { name: { type: 'string' } } } },
});

describe('the request registry (pure: no workflow API, no server)', () => {
  it('imports nothing from @temporalio/workflow', () => {
    const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'workflows', 'host', 'registry.ts');
    assert.doesNotMatch(readFileSync(src, 'utf8'), /from '@temporalio\/workflow'/);
  });

  it('assigns call ids c1, c2, … (with a prefix once set) and keeps a call registered twice once, with the arguments of the second', () => {
    const { r } = registry();
    assert.equal(r.newCall({ server: 's', tool: 't' }).callId, 'c1');
    const c2 = r.newCall({ server: 's', tool: 't', step: 'a' });
    assert.equal(c2.callId, 'c2');
    assert.equal(c2.expiresInMs, DEFAULT_EXPIRES_IN_MS);
    assert.equal(c2.holdForMs, DEFAULT_HOLD_FOR_MS);
    const again = r.newCall({ server: 's', tool: 't', arguments: { x: 1 } }, 'c2');
    assert.equal(again, c2);
    assert.equal(again.arguments, '{"x":1}');
    r.prefixCallIds('step-1.');
    assert.equal(r.newCall({ server: 's', tool: 't' }).callId, 'step-1.c3');
  });

  it('cuts a call’s arguments to what the memo shows, and says so for arguments that are not JSON', () => {
    const { r } = registry();
    const long = r.newCall({ server: 's', tool: 't', arguments: { text: 'x'.repeat(5000) } });
    // ARGUMENTS_SHOWN: an approval's arguments are never larger (they are refused before anyone is asked).
    assert.equal(long.arguments!.length, ARGUMENTS_SHOWN);
    assert.equal(ARGUMENTS_SHOWN, APPROVAL_ARGUMENTS_MAX);
    assert.ok(long.arguments!.endsWith('…'));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(r.newCall({ server: 's', tool: 't', arguments: cyclic }).arguments, '(arguments that are not JSON)');
  });

  it('records a request once, with its expiry from the call’s expiresIn, and gives back the recorded one after', () => {
    const { r, clock } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't', expiresInMs: '1h' });
    const first = r.record(input('q1'), callId);
    assert.ok(first.entry, 'recorded now');
    assert.equal(first.request.expiresAt, new Date(T0 + 3_600_000).toISOString());
    assert.equal(expiresAtOf(first.request), T0 + 3_600_000);
    clock.now += 5_000;
    const second = r.record(input('q1', 'changed'), callId);
    assert.equal(second.entry, undefined, 'not recorded twice');
    assert.equal(second.request, first.request);
    assert.deepEqual(
      r.pendingRecords().map((e) => [e.request.id, e.callId, e.since]),
      [['q1', callId, T0]],
    );
  });

  it('resolves a pending request once; the answer is handed to later attempts and a resolved request is not recorded again', () => {
    const { r } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't' });
    r.record(input('q1'), callId);
    const answer = { id: 'q1', ok: true as const, data: { name: 'Ada' } };
    assert.equal(r.resolve(answer)?.request.id, 'q1');
    assert.equal(r.resolve({ id: 'q1', ok: false, reason: 'declined' }), undefined, 'the first resolution wins');
    assert.deepEqual(r.recordedFor(callId), { q1: answer });
    assert.equal(r.isPending('q1'), false);
    assert.equal(r.isResolved('q1'), true);
    assert.equal(r.record(input('q1'), callId).entry, undefined);
  });

  it('checks an answer against the request it names, and refuses a late one with how the request ended', () => {
    const { r } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't' });
    r.record(input('q1'), callId);
    assert.equal(r.check({ id: 'q1', ok: true, data: { name: 'Ada' } }).ok, true);
    assert.equal(r.check({ id: 'nope', ok: true, data: {} }).ok, false);
    r.resolve({ id: 'q1', ok: false, reason: 'expired' });
    assert.deepEqual(r.check({ id: 'q1', ok: true, data: { name: 'Ada' } }), {
      ok: false,
      reason: 'request "q1" is no longer pending: it was already expired',
      type: 'Expired',
    });
  });

  it("the result's metadata.answers say how strongly the worker knows who answered, and a claimed source as claimed", () => {
    const { r } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't' });
    r.record(input('q1'), callId);
    r.record(input('q2'), callId);
    r.resolve({ id: 'q1', ok: true, data: { name: 'Ada' } }, { by: 'ana', source: 'oidc', assurance: 'issuer-verified' });
    r.resolve({ id: 'q2', ok: true, data: { name: 'Eve' } }, { by: 'eve', source: 'claimed', claimed: 'oidc', assurance: 'claimed' });
    assert.deepEqual(
      r.forgetCall(callId).answers.sort((a, b) => a.id.localeCompare(b.id)),
      [
        { id: 'q1', action: 'accept', by: 'ana', via: 'oidc', assurance: 'issuer-verified' },
        { id: 'q2', action: 'accept', by: 'eve', via: 'claimed', claimed: 'oidc', assurance: 'claimed' },
      ],
    );
  });

  it('N of M: the record is as strong as the weakest accept (one claimed accept among signed-in ones is claimed)', () => {
    const { r } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't', requiredApprovals: 3 });
    r.record(input('q1'), callId);
    const accept = { id: 'q1', ok: true, data: { name: 'Ada' } } as const;
    const oidc = { source: 'oidc', assurance: 'issuer-verified' } as const;
    const claimed = { source: 'claimed', claimed: 'oidc', assurance: 'claimed' } as const;
    const entry = r.pendingRecord('q1')!;
    const count = (a: typeof accept, who: string, person: string, sender: SenderRecord) => countAccept(entry, r.requiredAccepts(entry), a, who, person, sender);
    const weakest = (id: string) => r.pendingRecord(id)?.accepts?.weakest;
    assert.equal(count(accept, 'ana', 'ana', oidc), true);
    assert.deepEqual(weakest('q1'), oidc);
    assert.equal(count(accept, 'eve', 'eve', claimed), true);
    assert.equal(count(accept, 'eve', 'eve', oidc), true, 'a repeat counts nothing, and strengthens nothing');
    assert.deepEqual(weakest('q1'), claimed);
    assert.equal(count(accept, 'bob', 'bob', oidc), false);
    assert.deepEqual(weaker(weakest('q1'), oidc), claimed);
    assert.deepEqual(weaker(undefined, oidc), oidc);
    assert.deepEqual(weaker({ source: 'token', assurance: 'inbox-token' }, oidc), { source: 'token', assurance: 'inbox-token' });
  });

  it('ends a call: returns its requests still pending, and once forgotten remembers how they ended (bounded)', () => {
    const { r } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't' });
    r.record(input('q1'), callId);
    r.record(input('q2'), callId);
    r.resolve({ id: 'q1', ok: true, data: { name: 'Ada' } }, { by: 'ana@example.com', source: 'oidc', at: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(r.endCall(callId), ['q2']);
    r.resolve({ id: 'q2', ok: false, reason: 'cancelled' }, { by: 'withdrawn' });
    const forgotten = r.forgetCall(callId);
    assert.deepEqual(forgotten.dropped.sort(), ['q1', 'q2']);
    // Who answered, never what: the result's metadata.answers.
    assert.deepEqual(
      forgotten.answers.sort((a, b) => a.id.localeCompare(b.id)),
      [
        { id: 'q1', action: 'accept', by: 'ana@example.com', via: 'oidc', at: '2026-01-01T00:00:00.000Z' },
        { id: 'q2', action: 'cancel', reason: 'cancelled', by: 'withdrawn' },
      ],
    );
    assert.equal(r.call(callId), undefined);
    assert.deepEqual(r.recordedFor(callId), {});
    const late = r.check({ id: 'q1', ok: true, data: { name: 'Ada' } });
    assert.equal(late.ok, false);
    assert.match(late.ok ? '' : late.reason, /already accepted/);
    for (let i = 0; i < FINISHED_REMEMBERED + 5; i++) {
      const c = r.newCall({ server: 's', tool: 't' }).callId;
      r.record(input(`x${i}`), c);
      r.resolve({ id: `x${i}`, ok: false, reason: 'declined' });
      r.forgetCall(c);
    }
    assert.equal(r.snapshot().finished?.length, FINISHED_REMEMBERED);
  });

  it('keeps the last progress of a running call, none once it ended', () => {
    const { r } = registry();
    const board = new CallProgressBoard();
    const { callId } = r.newCall({ server: 's', tool: 't', step: 'a' });
    board.record(r.call(callId), { callId, progress: 1, total: 3, message: 'one' });
    board.record(r.call(callId), { callId, progress: 2, total: 3 });
    assert.deepEqual(board.list(), [{ callId, server: 's', tool: 't', step: 'a', progress: 2, total: 3 }]);
    board.end(callId);
    assert.deepEqual(board.list(), []);
    board.record(r.call(callId), { callId, progress: 3 });
    assert.deepEqual(board.list(), []);
  });

  it('tracks the call a released call waits for, with its modern-era round', () => {
    const { r: registered } = registry();
    const { callId } = registered.newCall({ server: 's', tool: 't' });
    assert.equal(registered.soleCallId(), callId);
    const r = new CallWaits();
    const round = { round: 2, requests: [{ key: 'k', id: 'q1', mode: 'form' as const }], form: 'mrtr' as const };
    r.setWaiting(callId, 'q1', { round });
    assert.equal(r.waitingFor(callId), 'q1');
    assert.deepEqual(r.roundWaitOf(callId), round);
    r.setWaiting(callId, 'q2');
    assert.equal(r.roundWaitOf(callId), undefined, 'a plain wait clears the round');
    r.setWaiting(callId, undefined);
    assert.equal(r.waitingFor(callId), undefined);
  });

  it('tracks a call that follows an MCP task while it waits, carries the task through a snapshot, and forgets it with the call', () => {
    const callId = 'c1';
    const r = new CallWaits();
    assert.equal(r.isWaiting(callId), false);
    const wait = {
      task: { taskId: 'task-1', status: 'input_required', ttlMs: 60_000 },
      deadline: T0 + 60_000,
      asked: ['name'],
      round: 1,
      requests: [{ key: 'name', id: 'q1', mode: 'form' as const }],
    };
    r.setTaskWaiting(callId, wait);
    assert.equal(r.isWaiting(callId), true, 'a task wait is a wait (mcpToolCall may continue as new)');
    assert.equal(r.waitingFor(callId), undefined, 'but not a released call: nothing runs tools/call again');
    const next = new CallWaits();
    next.restore(JSON.parse(JSON.stringify(r.snapshot())));
    assert.deepEqual(next.taskWaitOf(callId), wait);
    r.setTaskWaiting(callId, undefined);
    assert.equal(r.isWaiting(callId), false);
    assert.equal(r.snapshot().tasks, undefined, 'no task field when no call follows one');
    next.forget(callId, []);
    assert.equal(next.taskWaitOf(callId), undefined);
  });

  it('carries its state through a snapshot into a new registry (as across continue-as-new)', () => {
    const { r } = registry();
    const { callId } = r.newCall({ server: 's', tool: 't', step: 'a' });
    r.record(input('q1'), callId);
    r.record(input('q2'), callId);
    r.resolve({ id: 'q2', ok: true, data: { name: 'Ada' } });
    const waits = new CallWaits();
    waits.setWaiting(callId, 'q1', { round: { round: 1, requests: [], form: 'mrtr' } });
    const snapshot = JSON.parse(JSON.stringify({ ...r.snapshot(), ...waits.snapshot() }));
    const next = new RequestRegistry(() => T0);
    next.restore(snapshot);
    const nextWaits = new CallWaits();
    nextWaits.restore(snapshot);
    assert.deepEqual(next.snapshot(), r.snapshot());
    assert.deepEqual(nextWaits.snapshot(), waits.snapshot());
    assert.equal(next.isPending('q1'), true);
    assert.deepEqual(nextWaits.roundWaitOf(callId), { round: 1, requests: [], form: 'mrtr' });
    assert.equal(next.newCall({ server: 's', tool: 't' }).callId, 'c2', 'call ids go on');
    assert.deepEqual(next.contextOf(next.pendingRecords()[0]), { callId, server: 's', tool: 't', step: 'a', askedAt: new Date(T0).toISOString() });
  });

  it('names how a request ended in one place, and the id an answer names', () => {
    assert.equal(requestOutcomeOf({ id: 'a', ok: true, data: {} }), 'accepted');
    assert.equal(requestOutcomeOf({ id: 'a', ok: false, reason: 'declined' }), 'declined');
    assert.equal(requestOutcomeOf({ id: 'a', ok: false, reason: 'expired' }), 'expired');
    assert.equal(requestOutcomeOf({ id: 'a', ok: false, reason: 'cancelled' }), 'cancelled');
    assert.equal(answerId({ id: 'q' }), 'q');
    assert.equal(answerId(['q']), undefined);
    assert.equal(cut('abcdef', 4), 'abc…');
  });
});
