/** Pack this project as npm would publish it, and install the tarball into a user project of its own. */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { scratchDir } from './scratch.js';

/** The repository root (this file is dist/test/helpers/pack.js). */
export const projectRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');

let packed: string | undefined;
/** `npm pack` of the built project, once per process: the tarball's path. */
export function packProject(): string {
  if (packed) return packed;
  const dir = scratchDir('durable-mcp-pack-');
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: projectRoot, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  packed = join(dir, out);
  return packed;
}

/**
 * Copy a user project (a folder with a package.json) to a temp folder, point its `durable-mcp` dependency at the
 * packed tarball, and `npm install` it. Returns the folder.
 */
export function installUserProject(source: string): string {
  const dir = scratchDir('durable-mcp-user-');
  cpSync(source, dir, { recursive: true, filter: (p) => !p.includes('node_modules') });
  const pkgPath = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  pkg.dependencies = { ...pkg.dependencies, 'durable-mcp': `file:${packProject()}` };
  writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  return dir;
}

/** The versions of `name` npm installed in `dir` (every copy in the tree; none when it is not installed). */
export function installedVersions(dir: string, name: string): string[] {
  const r = spawnSync('npm', ['ls', name, '--all', '--json'], { cwd: dir, encoding: 'utf8' });
  const found = new Set<string>();
  (function walk(d: { version?: string; dependencies?: Record<string, unknown> }, key?: string) {
    if (key === name && d.version) found.add(d.version);
    for (const [k, child] of Object.entries(d.dependencies ?? {})) walk(child as never, k);
  })(JSON.parse(r.stdout || '{}'));
  return [...found].sort();
}

/**
 * The environment a user project's tests run in: this machine's Temporal binaries, as a user would point at theirs
 * (nothing is downloaded), and not a child of this test run (without NODE_TEST_CONTEXT a node:test runner prints
 * its own summary).
 */
function userProjectEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  return {
    ...inherited,
    TEMPORAL_CLI_PATH: findTemporalBinary('cli').path!,
    TEMPORAL_TEST_SERVER_PATH: findTemporalBinary('test-server').path!,
    NODE_OPTIONS: '',
    ...env,
  };
}

/** `npm test [-- args]` in an installed user project. Returns the exit status and stdout + stderr. */
export function runUserProjectTests(dir: string, args: string[] = [], env: Record<string, string> = {}): { status: number | null; out: string } {
  const r = spawnSync('npm', ['test', ...(args.length ? ['--', ...args] : [])], { cwd: dir, encoding: 'utf8', env: userProjectEnv(env), timeout: 840_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** `node --test FILES` in an installed user project, on this process's Node. Returns the exit status and stdout + stderr. */
export function runUserProjectTestFiles(dir: string, files: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], {
    cwd: dir,
    encoding: 'utf8',
    env: userProjectEnv({}),
    timeout: 840_000,
  });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** The pass and fail counts of a node:test run's summary, whichever reporter printed it (TAP `# pass 3`, spec `ℹ pass 3`). */
export function testCounts(out: string): { pass: number; fail: number } {
  const count = (what: string) => Number(new RegExp(`^(?:# |\u2139 )${what} (\\d+)$`, 'm').exec(out)?.[1]);
  return { pass: count('pass'), fail: count('fail') };
}

/** Runs a command (npm, npx, git, node) in `cwd` for a package test: its exit code and output, never a throw (10 minutes at most). */
export function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(
      cmd,
      args,
      {
        cwd,
        timeout: 600_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...env },
      },
      (err, stdout, stderr) => res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
