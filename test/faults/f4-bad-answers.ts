/**
 * F4: seeded bad answers, each sent as the `submitAnswer` update (must be rejected with the reason the
 * contract gives) and as the `answer` signal (must be dropped: logged, nothing resolved). Wrong ids, wrong
 * types for every field of ask_form's schema, schema violations, oversize, bad envelopes, non-objects,
 * duplicates after a valid answer, late answers after expiry and after completion. Afterwards: no workflow
 * task failed, the MCP servers never saw a bad answer, and every request is still answerable.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { checkAnswer, MAX_ANSWER_BYTES, type Request } from '../../src/contract/index.js';
import { mcpPipeline, mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { waitForPending } from '../helpers/watch.js';
import { fixtureEntry, pick, randInt, rng, secs, subSeed, until, within, type Rand } from './lib.js';
import { captured, inProcessWorker, workflowTaskFailures, type CaseContext, type FaultCase } from './suite.js';

const HOLD = 30 * 60 * 1000;

interface Target {
  name: string;
  handle: WorkflowHandle;
  pending: Map<string, Request>;
  /** Resolved request ids → how ("accepted", "expired"). */
  resolved: Map<string, string>;
  closed: boolean;
}

interface BadAnswer {
  category: string;
  target: Target;
  raw: unknown;
}

const VALID_FULL = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  website: 'https://example.com/ada',
  birthday: '1815-12-10',
  meeting: '2025-01-31T09:30:00Z',
  age: 36,
  score: 7.5,
  subscribe: true,
  color: 'green',
  size: 'l',
  tags: ['a', 'c'],
  toppings: ['y'],
};

const WRONG_TYPES: Record<string, unknown[]> = {
  name: [42, true, null, [], {}, ['Ada'], 3.5],
  email: [7, false, [], { at: 'x' }, null],
  website: [1, true, ['https://x.test'], {}],
  birthday: [18151210, true, [], { y: 1815 }],
  meeting: [1700000000000, false, ['2025-01-31T09:30:00Z'], {}],
  age: ['36', true, [36], {}, null, 'thirty-six'],
  score: ['7.5', false, [7], {}, null],
  subscribe: ['true', 1, 0, 'yes', [], {}, null],
  color: [1, true, ['green'], {}, null],
  size: [false, 2, ['m'], { m: 1 }],
  tags: ['a', 1, true, {}, [1], [null], [['a']], null],
  toppings: ['x', 0, {}, [true], [{ const: 'x' }]],
};

const VIOLATIONS: Array<Record<string, unknown> | ((d: Record<string, unknown>) => Record<string, unknown>)> = [
  { name: '' },
  { name: 'x'.repeat(51) },
  { email: 'nope' },
  { email: 'a@b' },
  { email: '@example.com' },
  { email: 'a b@example.com' },
  { website: 'example.com' },
  { website: 'http//missing-colon' },
  { website: 'https://exa mple.com' },
  { birthday: '2021-02-29' },
  { birthday: '2020-13-01' },
  { birthday: '2020-1-1' },
  { birthday: '20200101' },
  { meeting: '2025-01-31 09:30:00' },
  { meeting: '2025-01-31T25:00:00Z' },
  { meeting: '2025-01-31T09:30:00' },
  { meeting: '2025-02-30T09:30:00Z' },
  { age: -1 },
  { age: 151 },
  { age: 36.5 },
  { score: -0.1 },
  { score: 10.01 },
  { color: 'pink' },
  { color: 'Green' },
  { size: 'xl' },
  { size: 'Small' },
  { tags: [] },
  { tags: ['a', 'b', 'c'] },
  { tags: ['a', 'a'] },
  { tags: ['d'] },
  { toppings: ['z'] },
  { toppings: ['x', 'x'] },
  { bio: 'not in the schema' },
  { Name: 'Ada' },
  (d) => {
    const { name: _n, ...rest } = d;
    return rest;
  },
  (d) => {
    const { age: _a, ...rest } = d;
    return rest;
  },
  () => ({}),
  () => ({ email: 'ada@example.com' }),
];

/** A valid form answer's data, with some optional fields chosen at random. */
function validData(r: Rand): Record<string, unknown> {
  const d: Record<string, unknown> = { name: VALID_FULL.name, age: VALID_FULL.age };
  for (const [k, v] of Object.entries(VALID_FULL)) if (r() < 0.4) d[k] = v;
  return d;
}

function generate(
  r: Rand,
  n: number,
  t: { forms: Target[]; twice: Target; pipe: Target; done: Target; firstTwiceId: string; expId: string; doneId: string; otherIds: string[] },
): BadAnswer[] {
  const out: BadAnswer[] = [];
  let oversize = 0;
  const maxOversize = Math.max(2, Math.round(n / 100));
  const categories: Array<[string, number]> = [
    ['wrong-id', 12],
    ['wrong-type', 22],
    ['violation', 25],
    ['oversize', 2],
    ['envelope', 12],
    ['non-object', 9],
    ['duplicate', 7],
    ['late-after-expiry', 6],
    ['late-after-completion', 5],
  ];
  const total = categories.reduce((s, [, w]) => s + w, 0);
  let guard = 0;
  while (out.length < n && guard++ < n * 20) {
    let x = r() * total;
    const category = categories.find(([, w]) => (x -= w) < 0)![0];
    const form = pick(r, t.forms);
    const formId = [...form.pending.keys()][0];
    let target = form;
    let raw: unknown;
    switch (category) {
      case 'wrong-id': {
        const id = pick(r, [
          `r-${Math.floor(r() * 1e9).toString(16)}`,
          formId.toUpperCase(),
          `${formId} `,
          formId.slice(0, -1),
          `${formId}x`,
          ...t.otherIds,
          '',
          42,
          null,
          { id: formId },
          ['c1'],
          undefined,
        ]);
        raw = { ...(id === undefined ? {} : { id }), ok: true, data: validData(r) };
        break;
      }
      case 'wrong-type': {
        const field = pick(r, Object.keys(WRONG_TYPES));
        raw = { id: formId, ok: true, data: { ...validData(r), [field]: pick(r, WRONG_TYPES[field]) } };
        break;
      }
      case 'violation': {
        const v = pick(r, VIOLATIONS);
        const base = validData(r);
        raw = { id: formId, ok: true, data: typeof v === 'function' ? v(base) : { ...base, ...v } };
        break;
      }
      case 'oversize': {
        if (oversize >= maxOversize) continue;
        oversize++;
        const big = 'x'.repeat(MAX_ANSWER_BYTES + randInt(r, 1, 120_000));
        raw = { id: formId, ok: true, data: r() < 0.5 ? { ...validData(r), name: big } : { ...validData(r), notes: big } };
        break;
      }
      case 'envelope': {
        const data = validData(r);
        raw = pick(r, [
          { id: formId, data },
          { id: formId, ok: 'true', data },
          { id: formId, ok: 1, data },
          { id: formId, ok: null, data },
          { id: formId, ok: true, data: [data] },
          { id: formId, ok: true, data: 'name=Ada' },
          { id: formId, ok: true, data: null },
          { id: formId, ok: true, data: 42 },
          { id: formId, ok: true, data, reason: 'because' },
          { id: formId, ok: false, reason: 5 },
          { id: formId, ok: false, reason: { why: 'no' } },
          { id: formId, ok: true, data, extra: 1 },
          { id: formId, ok: true, Data: data },
          { id: formId, ok: true, data, requestId: formId },
        ]);
        break;
      }
      case 'non-object': {
        raw = pick(r, ['just a string', '', 42, 0, -1.5, null, true, false, [], [{ id: formId, ok: true, data: validData(r) }], ['ok']]);
        break;
      }
      case 'duplicate': {
        target = t.twice;
        raw = pick(r, [
          { id: t.firstTwiceId, ok: true, data: { first: 'Grace' } },
          { id: t.firstTwiceId, ok: true, data: { first: 42 } },
          { id: t.firstTwiceId, ok: false, reason: 'declined' },
          { id: t.firstTwiceId, ok: false },
          { id: t.firstTwiceId, ok: true },
        ]);
        break;
      }
      case 'late-after-expiry': {
        target = t.pipe;
        raw = pick(r, [
          { id: t.expId, ok: true, data: { name: 'Too Late' } },
          { id: t.expId, ok: false, reason: 'declined' },
          { id: t.expId, ok: true, data: { name: 7 } },
        ]);
        break;
      }
      case 'late-after-completion': {
        target = t.done;
        raw = pick(r, [
          { id: t.doneId, ok: true, data: { name: 'Too Late' } },
          { id: t.doneId, ok: false },
        ]);
        break;
      }
    }
    // JSON round trip: what is sent is exactly what the workflow receives.
    raw = raw === undefined ? raw : JSON.parse(JSON.stringify(raw));
    if (!target.closed && expectedReason(raw, target) === undefined) continue; // accidentally valid: not a bad answer
    out.push({ category, target, raw });
  }
  return out;
}

/** The reason the workflow must give (the contract's check, as the host applies it); undefined if acceptable. */
function expectedReason(raw: unknown, t: Target): string | undefined {
  const id = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
  if (typeof id === 'string' && t.resolved.has(id) && !t.pending.has(id)) return `request "${id}" is no longer pending: it was already ${t.resolved.get(id)}`;
  const c = checkAnswer(raw, typeof id === 'string' ? t.pending.get(id) : undefined);
  return c.ok ? undefined : c.reason;
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

export const f4: FaultCase = {
  id: 'F4',
  title: 'generated bad answers via submitAnswer and signal',
  timeoutMs: (sample) => (sample ? 120_000 : 420_000),
  async run(ctx: CaseContext) {
    const { client } = await ctx.shared();
    const seed = subSeed(ctx.seed, 'F4');
    const r = rng(seed);
    const n = ctx.sample ? 100 : 500;
    const logPath = join(ctx.dir, 'fixture.jsonl');
    const servers = ['form1', 'form2', 'twice', 'pipe', 'done'];
    const taskQueue = `faults-f4-${process.pid}-${Date.now()}`;
    await inProcessWorker(ctx, taskQueue, { mcpServers: Object.fromEntries(servers.map((s) => [s, fixtureEntry(s, ctx.tag, logPath)])) });
    const id = (s: string) => `f4-${s}-${ctx.seed}-${Date.now()}`;
    const call = (server: string, tool: string, extra: Record<string, unknown> = {}) =>
      client.workflow.start(mcpToolCall, { taskQueue, workflowId: id(server), args: [{ server, tool, elicitation: { holdFor: HOLD }, ...extra }] });
    const target = (name: string, handle: WorkflowHandle): Target => ({ name, handle, pending: new Map(), resolved: new Map(), closed: false });

    // Two form calls, a two-question call whose first answer is recorded, a pipeline whose first request
    // expired, and a call that completed.
    const form1 = target('form1', await call('form1', 'ask_form'));
    const form2 = target('form2', await call('form2', 'ask_form'));
    const twice = target('twice', await call('twice', 'ask_twice'));
    const pipe = target(
      'pipe',
      await client.workflow.start(mcpPipeline, {
        taskQueue,
        workflowId: id('pipe'),
        args: [
          {
            steps: [
              { name: 'exp', server: 'pipe', tool: 'ask_name', elicitation: { expiresIn: 1500, holdFor: HOLD } },
              { name: 'next', server: 'pipe', tool: 'ask_name', elicitation: { holdFor: HOLD } },
            ],
          },
        ],
      }),
    );
    const done = target('done', await call('done', 'ask_name'));
    for (const f of [form1, form2]) {
      const [req] = await waitForPending(f.handle, 1, 30_000);
      f.pending.set(req.id, req);
    }
    const [first] = await waitForPending(twice.handle, 1, 30_000);
    await twice.handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { first: 'Ada' } }] });
    twice.resolved.set(first.id, 'accepted');
    const second = await until(async () => (await twice.handle.query(pendingQuery)).find((q) => q.id !== first.id), 'second question of ask_twice', 30_000);
    twice.pending.set(second.id, second);
    const [exp] = await waitForPending(pipe.handle, 1, 30_000);
    const next = await until(
      async () => (await pipe.handle.query(pendingQuery)).find((q) => q.id !== exp.id),
      'the pipeline step after the expired one',
      30_000,
    );
    pipe.resolved.set(exp.id, 'expired');
    pipe.pending.set(next.id, next);
    const [doneReq] = await waitForPending(done.handle, 1, 30_000);
    await done.handle.executeUpdate(submitAnswerUpdate, { args: [{ id: doneReq.id, ok: true, data: { name: 'Early' } }] });
    assert.equal((await done.handle.result()).output, 'hello Early');
    done.closed = true;

    const formId = [...form1.pending.keys()][0];
    const answers = generate(r, n, {
      forms: [form1, form2],
      twice,
      pipe,
      done,
      firstTwiceId: first.id,
      expId: exp.id,
      doneId: doneReq.id,
      otherIds: [second.id, next.id, exp.id, first.id].filter((x) => x !== formId),
    });
    assert.equal(answers.length, n, `generated ${n} bad answers`);
    const byCategory = new Map<string, number>();
    for (const a of answers) byCategory.set(a.category, (byCategory.get(a.category) ?? 0) + 1);
    ctx.note(`seed ${seed}: ${n} bad answers: ${[...byCategory].map(([c, k]) => `${c} ${k}`).join(', ')}`);

    // ---- send each one as an update and as a signal ----
    const t0 = Date.now();
    const problems: string[] = [];
    let updatesRejected = 0;
    let signalsSent = 0;
    let signalsRefused = 0;
    const reasons = new Set<string>();
    await pool(answers, 6, async (a, i) => {
      const label = `#${i} ${a.category} → ${a.target.name} ${JSON.stringify(a.raw)?.slice(0, 100)}`;
      const expected = a.target.closed ? undefined : expectedReason(a.raw, a.target);
      // update
      try {
        const res = await within(a.target.handle.executeUpdate(submitAnswerUpdate, { args: [a.raw as any] }), 30_000, 'update');
        problems.push(`${label}: update ACCEPTED ${JSON.stringify(res)}`);
      } catch (err) {
        const reason = err instanceof WorkflowUpdateFailedError ? String((err.cause as Error)?.message ?? '') : String((err as Error)?.message ?? '');
        if (a.target.closed) {
          if (!/completed|not found/i.test(reason)) problems.push(`${label}: update to a completed workflow failed with an unexpected error: ${reason}`);
        } else if (!(err instanceof WorkflowUpdateFailedError)) {
          problems.push(`${label}: update failed with ${(err as Error)?.name}: ${reason}`);
        } else if (reason !== expected) {
          problems.push(`${label}: update rejected with "${reason.slice(0, 200)}", expected "${expected?.slice(0, 200)}"`);
        }
        if (!reason) problems.push(`${label}: rejected without a reason`);
        updatesRejected++;
        reasons.add(
          reason
            .replace(/"[^"]*"/g, '"…"')
            .replace(/\d+/g, 'N')
            .slice(0, 80),
        );
      }
      // signal
      try {
        await within(a.target.handle.signal(answerSignal, a.raw as any), 30_000, 'signal');
        signalsSent++;
        if (a.target.closed) problems.push(`${label}: signal to a completed workflow was accepted by the server`);
      } catch (err) {
        signalsRefused++;
        if (!a.target.closed) problems.push(`${label}: signal failed: ${(err as Error).message}`);
      }
    });
    const sendTime = Date.now() - t0;
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} bad answer(s) not rejected as expected`);

    // ---- nothing was resolved; the signals were logged and dropped ----
    for (const t of [form1, form2, twice, pipe]) {
      const p = await t.handle.query(pendingQuery);
      assert.deepEqual(
        p.map((q) => q.id),
        [...t.pending.keys()],
        `${t.name}: still pending after ${n} bad answers`,
      );
    }
    const running = new Set([form1, form2, twice, pipe].map((t) => t.handle.workflowId));
    const expectedDrops = answers.filter((a) => !a.target.closed).length;
    const drops = () => captured.filter((e) => e.message === 'answer signal dropped' && running.has(String(e.meta?.workflowId))).length;
    // Wait for the warnings to arrive (bounded), then compare: too few and too many both fail with the counts.
    for (const deadline = Date.now() + 15_000; drops() < expectedDrops && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 150));
    assert.equal(drops(), expectedDrops, 'every bad signal was logged as dropped, once');
    const failures: string[] = [];
    for (const t of [form1, form2, twice, pipe, done]) failures.push(...(await workflowTaskFailures(t.handle)));
    assert.deepEqual(failures, [], 'no workflow task failure in history');
    const seenByServers = readFixtureLog(logPath).filter((e) => e.event === 'received');
    assert.deepEqual(
      seenByServers.map((e) => `${e.server}:${(e.result as { action: string }).action}`).sort(),
      ['done:accept', 'pipe:cancel', 'twice:accept'],
      'the MCP servers saw only the valid answers and the expiry',
    );

    // ---- every request is still answerable ----
    const ans = (t: Target, data: Record<string, unknown>) =>
      t.handle.executeUpdate(submitAnswerUpdate, { args: [{ id: [...t.pending.keys()][0], ok: true, data }] });
    await ans(form1, VALID_FULL);
    await ans(form2, { name: 'Grace Hopper', age: 85 });
    await ans(twice, { last: 'Lovelace' });
    await ans(pipe, { name: 'Next' });
    const [r1, r2, r3, r4] = await within(
      Promise.all([form1.handle.result(), form2.handle.result(), twice.handle.result(), pipe.handle.result()]),
      60_000,
      'results',
    );
    assert.deepEqual(JSON.parse(r1.output), { action: 'accept', content: VALID_FULL });
    assert.deepEqual(JSON.parse(r2.output), { action: 'accept', content: { name: 'Grace Hopper', age: 85, subscribe: false, size: 'm' } });
    assert.equal(r3.output, 'Ada Lovelace');
    assert.equal(r4.status, 'completed');
    assert.equal(r4.steps.exp.result?.output, 'cancelled');
    assert.equal(r4.steps.next.result?.output, 'hello Next');
    const signals = ((await form1.handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    ctx.note(
      `sent in ${secs(sendTime)}: ${updatesRejected} updates rejected (${reasons.size} distinct reason shapes), ${signalsSent} signals delivered and dropped, ${signalsRefused} refused by the server (completed workflow); form1 history holds ${signals} signals`,
    );
    return `${n} bad answers: every update rejected with the contract's reason, every signal dropped; no workflow task failure; all requests answered validly afterwards`;
  },
};
