// Runs every compiled `*.test.js` under dist/test (and only those: helpers and fixture servers are not tests)
// with node's test runner. Arguments narrow the set: `npm test -- workflows` runs files whose path contains "workflows";
// `--except=newcomer` leaves out files whose path contains "newcomer" (CI's second Node line runs the rest).
// DURABLE_MCP_TEST_CONCURRENCY=3 runs three files at a time (default 2; .ci/run sets it, so its last line stays `npm test`).
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'test');
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'faults' ? [] : walk(p);
    return name.endsWith('.test.js') ? [p] : [];
  });
}
const USAGE = `usage: npm test -- [FRAGMENT...] [--except=FRAGMENT...]
  (or node dist/scripts/run-tests.js …, after npm run build)

Runs the compiled test files (dist/test/**/*.test.js) with node's test runner.
  FRAGMENT            run only the files whose path under test/ contains it (any of them), e.g.
                      npm test -- cli/agent            npm test -- workflows/replay inbox/
  --except=FRAGMENT   leave out the files whose path contains it (repeatable)
  -h, --help          print this and run nothing

Environment:
  DURABLE_MCP_TEST_CONCURRENCY=N   test files run at a time, 1 to 16 (default 2)
Output is TAP off a terminal; failing tests are repeated after the counts.`;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const unknown = args.filter((a) => a.startsWith('-') && !a.startsWith('--except='));
if (unknown.length > 0) {
  console.error(`run-tests: unknown option ${unknown.map((a) => JSON.stringify(a)).join(', ')}; see: npm test -- --help`);
  process.exit(2);
}
const filters = args.filter((a) => !a.startsWith('-'));
const except = args
  .filter((a) => a.startsWith('--except='))
  .map((a) => a.slice('--except='.length))
  .filter(Boolean);
const concurrencyVar = process.env.DURABLE_MCP_TEST_CONCURRENCY;
const concurrency = concurrencyVar === undefined || concurrencyVar === '' ? 2 : Number(concurrencyVar);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
  console.error(`DURABLE_MCP_TEST_CONCURRENCY=${concurrencyVar}: the number of test files run at a time must be a whole number from 1 to 16`);
  process.exit(2);
}
/**
 * The files that take longest (the newcomer's first hour, about 10 minutes; the fault sample, 3-4; the example
 * projects' installs, 2-3 each) start first: run last, alphabetically, they ended a whole run minutes after the others
 * (a stable sort: the rest stays in path order).
 */
const LONG_FIRST = ['newcomer/', 'fault-sample/', 'examples/'];
function longFirst(file: string): number {
  const i = LONG_FIRST.findIndex((x) => relative(root, file).includes(x));
  return i === -1 ? LONG_FIRST.length : i;
}
const files = walk(root)
  .filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)))
  .filter((f) => !except.some((x) => relative(root, f).includes(x)))
  .sort()
  .sort((a, b) => longFirst(a) - longFirst(b));
if (files.length === 0) {
  console.error(`no test files match ${[...filters, ...except.map((x) => `--except=${x}`)].join(' ')}`);
  process.exit(1);
}
// Off a terminal, TAP on every Node line (Node 20 and 22 print it there by default, 24 prints spec): CI's log
// and the fault suite's F5, which reads the counts and the failing titles, see one format.
const reporter = process.stdout.isTTY ? [] : ['--test-reporter=tap'];
// The timeout bounds each file too: the newcomer's first hour (a fresh clone, two npm ci, npm start, the README's
// walkthrough, both example projects) takes 6-9 minutes on 2 busy cores.
// A file past its timeout gets SIGTERM from the runner; the guard makes it exit within 30 s even if a Temporal worker's
// graceful shutdown waits on (./test-exit-guard.ts).
const guard = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'test-exit-guard.js')).href;
const child = spawn(process.execPath, ['--import', guard, '--test', ...reporter, `--test-concurrency=${concurrency}`, '--test-timeout=900000', ...files], {
  stdio: ['inherit', 'pipe', 'inherit'],
});
// The output passes through as it comes; each failing test's TAP entry (its title and its YAML block) is kept and
// printed again after the counts, so the last lines of a long log (all CI keeps) say what failed and why.
const failures: string[][] = [];
let open: { indent: number; lines: string[] } | undefined;
let partial = '';
function scan(line: string): void {
  const notOk = /^(\s*)not ok \d+ - /.exec(line);
  if (notOk && !open) {
    open = { indent: notOk[1]!.length, lines: [line] };
    return;
  }
  if (!open) return;
  if (open.lines.length < 80) open.lines.push(line);
  if (line === `${' '.repeat(open.indent + 2)}...`) {
    failures.push(open.lines);
    open = undefined;
  }
}
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  const lines = (partial + chunk.toString('utf8')).split('\n');
  partial = lines.pop() ?? '';
  lines.forEach(scan);
});
child.on('close', (code, signal) => {
  if (partial) scan(partial);
  if (open) failures.push(open.lines);
  if (failures.length > 0) {
    console.log(`\n== ${failures.length} failing test entr${failures.length === 1 ? 'y' : 'ies'} (innermost first), repeated from above:`);
    for (const lines of failures) console.log(lines.join('\n'));
  }
  process.exit(code ?? (signal ? 1 : 0));
});
