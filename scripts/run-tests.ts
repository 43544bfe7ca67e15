// Runs every compiled `*.test.js` under dist/test (and only those: helpers and fixture servers are not tests)
// with node's test runner. Arguments narrow the set: `npm test -- workflows` runs files whose path contains "workflows";
// `--except=newcomer` leaves out files whose path contains "newcomer" (CI's second Node line runs the rest).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'test');
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'faults' ? [] : walk(p);
    return name.endsWith('.test.js') ? [p] : [];
  });
}
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const except = process.argv
  .slice(2)
  .filter((a) => a.startsWith('--except='))
  .map((a) => a.slice('--except='.length))
  .filter(Boolean);
const files = walk(root)
  .filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)))
  .filter((f) => !except.some((x) => relative(root, f).includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${[...filters, ...except.map((x) => `--except=${x}`)].join(' ')}`);
  process.exit(1);
}
// Off a terminal, TAP on every Node line (Node 20 and 22 print it there by default, 24 prints spec): CI's log
// and the fault suite's F5, which reads the counts and the failing titles, see one format.
const reporter = process.stdout.isTTY ? [] : ['--test-reporter=tap'];
const r = spawnSync(process.execPath, ['--test', ...reporter, '--test-concurrency=2', '--test-timeout=480000', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
