/**
 * F5: determinism. (a) Every committed history under test/histories replays with the current workflow
 * code. (b) The integration suite passes with the worker's workflow cache disabled
 * (DURABLE_MCP_TEST_NO_CACHE=1: every workflow task replays the whole history).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historiesDir } from '../helpers/history.js';
import { committedHistories, replayCommitted } from '../helpers/replay.js';
import { secs, within } from './lib.js';
import type { CaseContext, FaultCase } from './suite.js';

const runTests = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'run-tests.js');

export const f5Replay: FaultCase = {
  id: 'F5a',
  title: 'every committed history replays',
  timeoutMs: () => 120_000,
  async run() {
    // As test/workflows/replay.test.ts: each history with the workflow code that ran it (an agent's with an agent
    // worker's bundle, test/helpers/replay.ts).
    const histories = committedHistories();
    assert.ok(histories.length > 0, `histories under ${historiesDir}`);
    const { replayed, failures } = await replayCommitted(histories);
    assert.equal(replayed.length, histories.length, 'every history was replayed');
    assert.deepEqual(failures, [], 'no history fails to replay');
    return `${replayed.length} histories replayed without nondeterminism (${histories.map((h) => h.name).join(', ')})`;
  },
};

/**
 * Temporal Core's zero-cache mode drops the tasks buffered for a run while it evicts the run, all but the first
 * (scripts/upstream/UPSTREAM.md, reproduced by scripts/upstream/query-dropped-cache0.ts), and logs this line.
 * A dropped query fails at its deadline; a dropped workflow task times out on the server and runs again. In
 * no-cache mode the test client sends one query per workflow at a time (OneQueryAtATime in
 * test/helpers/temporal.ts), so no query is dropped; workflow tasks still may be. Nothing is retried here: a
 * run that fails is a failed case, and the summary says how often Core logged this line.
 */
const CORE_DROPPED_TASK = 'There were leftover buffered tasks when evicting run';

interface TestRun {
  code: number | null | 'timeout';
  out: string;
  summary: string;
  logFile: string;
  ms: number;
}

async function runTestsNoCache(ctx: CaseContext, filters: string[], attempt: number, budget: number): Promise<TestRun> {
  // TMPDIR under the case dir: every temp file, FIXTURE_LOG and so every process of the run carries the tag.
  const tmp = join(ctx.dir, `tmp${attempt}`);
  mkdirSync(tmp, { recursive: true });
  const t0 = Date.now();
  // Without NODE_TEST_CONTEXT: when this suite itself runs under `node --test` (test/fault-sample), a
  // nested `node --test` would otherwise report to a parent that is not listening, and run nothing.
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  // Its own process group, so that a timed-out run is ended with everything it started.
  const child = spawn(process.execPath, [runTests, ...filters], {
    env: { ...env, DURABLE_MCP_TEST_NO_CACHE: '1', TMPDIR: tmp, DURABLE_MCP_FAULT_TAG: ctx.tag },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code, signal) => r(code ?? (signal ? -1 : null))));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  ctx.defer(killGroup);
  ctx.progress(() => {
    const passed = [...out.matchAll(/^\s*ok \d+ - (.*)$/gm)].map((m) => m[1]);
    const drops = out.split(CORE_DROPPED_TASK).length - 1;
    return `run-tests (attempt ${attempt}) ${secs(Date.now() - t0)} in: ${passed.length} test(s) passed, the last "${passed.at(-1) ?? '(none)'}"; Core dropped ${drops} task(s) so far`;
  });
  let code: TestRun['code'];
  try {
    code = await within(exited, budget, 'run-tests');
  } catch {
    code = 'timeout';
    killGroup();
  }
  const logFile = join(ctx.dir, `run-tests-${attempt}.log`);
  writeFileSync(logFile, out);
  const count = (k: string) => out.match(new RegExp(`^# ${k} (\\d+)`, 'm'))?.[1] ?? '?';
  const summary =
    code === 'timeout' ? `did not finish within ${secs(budget)}` : `exit ${code}: tests ${count('tests')}, pass ${count('pass')}, fail ${count('fail')}`;
  const ok = code === 0 && Number(count('tests')) > 0 && count('pass') === count('tests');
  if (!ok) {
    const failing = [...new Set([...out.matchAll(/^\s*not ok \d+ - (.*)$/gm)].map((m) => m[1]))].filter((t) => !t!.startsWith('/'));
    for (const f of failing.slice(0, 12)) ctx.note(`attempt ${attempt} not ok: ${f}`);
    const errors = [...out.matchAll(/^\s+error: (.*)$/gm)].map((m) => m[1]).slice(0, 6);
    for (const e of errors) ctx.note(`attempt ${attempt} error: ${e.slice(0, 200)}`);
    if (code === 'timeout') {
      const passed = [...out.matchAll(/^\s*ok \d+ - (.*)$/gm)].map((m) => m[1]);
      ctx.note(`attempt ${attempt} timed out after ${secs(budget)}; last test to pass: ${passed.at(-1) ?? '(none)'}`);
      // The slowest tests so far: a dropped task shows as a test one workflow task timeout slower (3 s in no-cache mode).
      const timed = [...out.matchAll(/^\s*ok \d+ - (.*)\n(?:.*\n){0,2}?\s*duration_ms: ([\d.]+)/gm)]
        .map((m) => ({ title: m[1]!, ms: Number(m[2]) }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 4);
      if (timed.length) ctx.note(`attempt ${attempt} slowest tests: ${timed.map((t) => `${t.title.slice(0, 80)} (${secs(t.ms)})`).join('; ')}`);
    }
    ctx.note(`attempt ${attempt} output: ${logFile}`);
  }
  return { code: ok ? 0 : code === 0 ? 1 : code, out, summary, logFile, ms: Date.now() - t0 };
}

/**
 * The scale tests of test/workflows: hundreds of `waitForPending` updates on one run (576 in long-wait, 1,001 in
 * long-wait-mrtr). Without a cache every workflow task replays the run's history so far, so n updates cost
 * O(n²) replayed events (measured on 2 shared cores: 72 waits 45 s, 144 waits 167 s); the full-size runs would
 * take hours. What they test (continue-as-new while waiting) runs with the cache in F7 and `npm test`.
 */
const SCALE_TESTS = ['long-wait.test.js', 'long-wait-mrtr.test.js'];

/** The compiled test files of test/workflows (this file is dist/test/faults/f5-replay.js). */
function workflowTestFiles(): string[] {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'workflows');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
}

export const f5NoCache: FaultCase = {
  id: 'F5b',
  title: 'integration tests pass with the workflow cache disabled',
  timeoutMs: (sample) => (sample ? 330_000 : 900_000),
  async run(ctx: CaseContext) {
    // Sample: the pipelines (child workflows, continue-as-new, many requests). Not elicitation.test: its test "a call
    // released before its request expires …" failed here once (CI, 2026-12-04): Core dropped the task carrying the
    // call's `elicit` update (the eviction warning below, then a 10 s UpdateWorkflowExecution), and the call's release
    // reached the workflow only after the request's 45 s expiry, so the expected release timer never started. Not yet
    // explained (scripts/upstream/UPSTREAM.md, the zero-cache entry); the full case (npm run test:faults) runs it.
    const filters = ctx.sample
      ? ['workflows/pipeline']
      : workflowTestFiles()
          .filter((f) => !SCALE_TESTS.includes(f))
          .map((f) => `workflows/${f}`);
    // Full: 13 files, 99 tests; they took 288 s and 382 s here (2 cores shared, load average 10 to 26).
    // Sample (with elicitation.test then): 50 tests, 72-93 s alone on 2 cores; inside CI's npm test (two more test
    // files at once) one run took over 130 s, and one in CI (2026-12-06) had not finished 180 s in when the whole fault
    // sample was stopped. Each task Core drops costs a workflow task timeout before the server hands it out again (10 s
    // then; 3 s in no-cache mode since, see noCacheServerArgs in test/helpers/temporal.ts), and the drops grow with the
    // load and with queries polled beside arriving updates (pollEveryMs), so the budget leaves room for both. Pipeline
    // sample alone, 2026-12-06: 24-41 s with 1-3 drops before; 35-38 s with none after.
    const budget = ctx.sample ? 270_000 : 780_000;
    const command = `DURABLE_MCP_TEST_NO_CACHE=1 node dist/scripts/run-tests.js ${filters.join(' ')}`;
    if (!ctx.sample)
      ctx.note(
        `left out: ${SCALE_TESTS.join(', ')} (without a cache n waits replay O(n²) events: 72 waits took 45 s, 144 took 167 s here; F7 and npm test run them with the cache)`,
      );
    const run = await runTestsNoCache(ctx, filters, 1, budget);
    const drops = run.out.split(CORE_DROPPED_TASK).length - 1;
    const coreNote = drops ? `; Temporal Core logged "${CORE_DROPPED_TASK}" ${drops}x (zero-cache dropped task)` : '';
    if (drops) ctx.note(`Temporal Core logged "${CORE_DROPPED_TASK}" ${drops}x in this run`);
    assert.equal(run.code, 0, `${command}: ${run.summary}${coreNote}`);
    return `${command}: ${run.summary} in ${secs(run.ms)}${coreNote}`;
  },
};
