// Runs test files on another line of the Temporal TypeScript SDK (CI: 1.23, the line `@temporalio/ai-sdk` 1.23.0 pins;
// docs/agents.md). `node dist/scripts/temporal-line.js 1.23.0 [test fragments…]`: copies the checkout's tracked files
// to .data/temporal-line-<version>, pins every `@temporalio/*` of its package.json (but `@temporalio/ai-sdk`) to that
// version, installs from the lockfile with `npm install` (only the Temporal packages change), checks that npm keeps one
// copy of each `@temporalio/*` package, builds (tsc and the workflow bundles, on that line), and runs the test files.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [version, ...tests] = process.argv.slice(2);
if (!version || !/^\d+\.\d+\.\d+$/.test(version)) {
  console.error('usage: node dist/scripts/temporal-line.js <version, e.g. 1.23.0> [test file fragments…]');
  process.exit(2);
}
const dir = join(repo, '.data', `temporal-line-${version}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

// The tracked files (what a fresh clone has), not dist, node_modules or .tools.
const files = execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' }).split('\0').filter(Boolean);
for (const f of files) {
  if (!existsSync(join(repo, f))) continue;
  mkdirSync(dirname(join(dir, f)), { recursive: true });
  cpSync(join(repo, f), join(dir, f));
}
// The Temporal binaries, Python and Go fixtures the tests start (installed by `npm run tools`).
if (existsSync(join(repo, '.tools'))) symlinkSync(join(repo, '.tools'), join(dir, '.tools'));

const pkgPath = join(dir, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as Record<string, Record<string, string> | undefined>;
for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
  const deps = pkg[field];
  if (!deps) continue;
  for (const name of Object.keys(deps)) if (name.startsWith('@temporalio/') && name !== '@temporalio/ai-sdk') deps[name] = version;
}
writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');

function run(cmd: string, args: string[]): void {
  console.log(`== [temporal ${version}] ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);

// One copy of each Temporal package, at the version asked for.
const tree = JSON.parse(execFileSync('npm', ['ls', '--all', '--json'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Dep;
interface Dep {
  version?: string;
  dependencies?: Record<string, Dep>;
}
const seen = new Map<string, Set<string>>();
(function walk(d: Dep) {
  for (const [name, child] of Object.entries(d.dependencies ?? {})) {
    if (name.startsWith('@temporalio/') && child.version) {
      const versions = seen.get(name) ?? new Set<string>();
      versions.add(child.version);
      seen.set(name, versions);
    }
    walk(child);
  }
})(tree);
const wrong = [...seen].filter(([name, v]) => v.size !== 1 || (name !== '@temporalio/ai-sdk' && name !== '@temporalio/workflow-streams' && !v.has(version)));
if (wrong.length > 0) {
  console.error(`[temporal ${version}] npm did not keep one copy at ${version}: ${wrong.map(([n, v]) => `${n}@${[...v].join(',')}`).join(' ')}`);
  process.exit(1);
}
console.log(`== [temporal ${version}] one copy each: ${[...seen].map(([n, v]) => `${n}@${[...v][0]}`).join(' ')}`);

run('npm', ['run', '--silent', 'build']);
if (tests.length > 0) run(process.execPath, ['dist/scripts/run-tests.js', ...tests]);
