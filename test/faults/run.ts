#!/usr/bin/env node
/**
 * The fault suite (issue 6): `npm run test:faults` (full, on demand) or `node dist/test/faults/run.js --sample`
 * (a subset sized for CI). Real Temporal dev servers (the CLI binary, never downloaded), real fixture MCP
 * servers, real process kills. Prints each case's outcome and evidence, then exactly `N passed, N failed`
 * on a line of its own; exits non-zero if any case failed.
 *
 *   --sample         the CI subset (F1 with 5 calls and 2 kills, F4 with 100 answers, F5b on the pipeline tests, F6 with 30 steps, …)
 *   --seed N         the seed of every random choice (printed at the start; timing still varies between runs)
 *   --only F1,F3c    run only these cases (prefix match: --only F3 runs F3a…F3e)
 *   --verbose        print the SDK's warnings as they happen
 *
 * Every process a case starts carries the case's tag (on its command line or in its environment); after
 * each case the suite checks that none is left, and at the end that nothing of the run is left.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { childPids } from '../../scripts/processes.js';
import { f1 } from './f1-worker-kill.js';
import { f2 } from './f2-server-kill.js';
import { f3Cases } from './f3-mcp-faults.js';
import { f4 } from './f4-bad-answers.js';
import { f5NoCache, f5Replay } from './f5-replay.js';
import { f6 } from './f6-long-pipeline.js';
import { f7 } from './f7-long-wait.js';
import { DevServer, leftovers, secs, taggedPids, within } from './lib.js';
import { installCapturingRuntime, type CaseContext, type FaultCase, type SharedEnv } from './suite.js';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const value = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
};
const sample = flag('--sample');
const verbose = flag('--verbose');
const seed = value('--seed') !== undefined ? Number(value('--seed')) >>> 0 : (Date.now() ^ (process.pid << 12)) >>> 0;
const only = value('--only')
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);

const runTag = `dmfaults${process.pid}x${Date.now().toString(36)}`;
installCapturingRuntime(verbose);
// A case that timed out may leave work running until its cleanup: report strays, never crash the runner.
let strays = 0;
process.on('unhandledRejection', (err) => {
  strays++;
  process.stderr.write(`fault suite: unhandled rejection: ${(err as Error)?.stack ?? String(err)}\n`);
});
process.on('uncaughtException', (err) => {
  strays++;
  process.stderr.write(`fault suite: uncaught exception: ${err?.stack ?? String(err)}\n`);
});

/** The cases running now: when each started, and how far it says it got. */
const running = new Map<string, { t0: number; progress?: () => string }>();

// Interrupted (Ctrl-C, or a CI timeout): say which cases were running and how far they got, then end every process of
// this run before exiting.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    for (const [id, r] of running) {
      let how = '';
      try {
        how = r.progress ? `: ${r.progress()}` : '';
      } catch (err) {
        how = `: (progress unknown: ${(err as Error).message})`;
      }
      console.log(`INTERRUPTED ${id} after ${secs(Date.now() - r.t0)}${how}`);
    }
    const pids = taggedPids(runTag);
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
    console.log(`fault suite: ${sig}, ended ${pids.length} process(es) of this run`);
    console.log('0 passed, 1 failed');
    process.exit(130);
  });
}

// F7 (30 simulated days of waits) is left out of the sample: `npm test` runs the same test for 4 days.
const all: FaultCase[] = [f1, f2, ...f3Cases, f4, f5Replay, f5NoCache, f6, ...(sample ? [] : [f7])];
const cases = all.filter((c) => !only || only.some((o) => c.id.startsWith(o)));
const root = join(tmpdir(), `${runTag}-root`);
mkdirSync(root, { recursive: true });

let sharedP: Promise<SharedEnv> | undefined;
const sharedTag = `${runTag}-shared-`;
const shared = (): Promise<SharedEnv> =>
  (sharedP ??= (async () => {
    const server = await DevServer.create(join(root, sharedTag), sharedTag);
    await server.start();
    const { client, connection } = await server.client();
    const native = await NativeConnection.connect({ address: server.address });
    return { server, client, connection, native };
  })());

interface Outcome {
  c: FaultCase;
  ok: boolean;
  ms: number;
  summary?: string;
  error?: unknown;
  notes: string[];
}

async function runCase(c: FaultCase): Promise<Outcome> {
  const tag = `${runTag}-${c.id}-`;
  const dir = join(root, tag);
  mkdirSync(dir, { recursive: true });
  const deferred: Array<() => unknown> = [];
  const notes: string[] = [];
  const ctx: CaseContext = {
    id: c.id,
    tag,
    dir,
    seed,
    sample,
    shared,
    defer: (fn) => deferred.push(fn),
    note: (line) => notes.push(line),
    progress: (describe) => {
      const r = running.get(c.id);
      if (r) r.progress = describe;
    },
  };
  const t0 = Date.now();
  running.set(c.id, { t0 });
  let summary: string | undefined;
  let error: unknown;
  try {
    summary = await within(c.run(ctx), c.timeoutMs(sample), `case ${c.id}`);
  } catch (err) {
    error = err;
  }
  running.delete(c.id);
  for (const fn of deferred.reverse()) {
    try {
      await within(Promise.resolve().then(fn), 30_000, 'cleanup step');
    } catch (err) {
      notes.push(`cleanup: ${(err as Error).message.split('\n')[0]}`);
      error ??= err;
    }
  }
  const left = await leftovers(tag, [], 20_000);
  if (left.length) {
    notes.push(`left behind: ${left.join('; ')}`);
    error ??= new Error(`${left.length} process(es) of this case still alive after it ended`);
    for (const p of taggedPids(tag)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  return { c, ok: !error, ms: Date.now() - t0, summary, error, notes };
}

function print(o: Outcome): void {
  const head = `${o.ok ? 'PASS' : 'FAIL'} ${o.c.id} ${o.c.title} (${secs(o.ms)})`;
  const lines = [head];
  if (o.ok) lines.push(`     ${o.summary}`);
  else {
    const err = o.error as Error;
    lines.push(`     ${(err?.message ?? String(err)).split('\n').slice(0, 25).join('\n     ').slice(0, 3000)}`);
  }
  for (const n of o.notes) lines.push(`     · ${n}`);
  console.log(lines.join('\n'));
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const childrenBefore = childPids().length;
  const taggedBefore = taggedPids(runTag).length;
  console.log(`durable-mcp fault suite (${sample ? 'sample' : 'full'}): seed ${seed} (rerun with --seed ${seed}), ${cases.length} case(s), work dir ${root}`);
  console.log(`processes before: ${childrenBefore} child(ren) of this runner, ${taggedBefore} tagged`);
  const outcomes: Outcome[] = [];
  for (let i = 0; i < cases.length;) {
    const group = cases[i].group;
    const batch = [cases[i++]];
    while (group && i < cases.length && cases[i].group === group) batch.push(cases[i++]);
    if (batch.length > 1) console.log(`(running ${batch.map((c) => c.id).join(', ')} concurrently)`);
    else console.log(`(running ${batch[0].id})`);
    const results = await Promise.all(batch.map(runCase));
    for (const o of results) {
      print(o);
      outcomes.push(o);
    }
  }

  // Stop the shared server, then nothing of this run may be left.
  if (sharedP) {
    const s = await sharedP.catch(() => undefined);
    if (s) {
      await s.native.close().catch(() => undefined);
      await s.connection.close().catch(() => undefined);
      await s.server.kill('SIGTERM');
    }
  }
  const left = await leftovers(runTag, [], 20_000);
  const childrenAfter = childPids().length;
  const cleanup: Outcome = {
    c: { id: 'cleanup', title: 'no process of the suite left behind', timeoutMs: () => 0, run: async () => '' },
    ok: left.length === 0 && childrenAfter <= childrenBefore,
    ms: 0,
    summary: `processes after: ${childrenAfter} child(ren) of this runner (before: ${childrenBefore}), ${left.length} tagged`,
    error: new Error(`left behind: ${left.join('; ') || 'none tagged'}; children of the runner: ${childPids().join(', ') || 'none'}`),
    notes: [],
  };
  print(cleanup);
  outcomes.push(cleanup);
  for (const p of taggedPids(runTag)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }

  const passed = outcomes.filter((o) => o.ok).length;
  const failed = outcomes.length - passed;
  console.log(
    `total ${secs(Date.now() - t0)}, seed ${seed}${strays ? `, ${strays} stray error(s) reported on stderr` : ''}${failed ? `, work dir kept: ${root}` : ''}`,
  );
  if (!failed) rmSync(root, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`fault suite crashed: ${(err as Error)?.stack ?? String(err)}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
