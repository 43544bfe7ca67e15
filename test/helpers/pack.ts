/** Pack this project as npm would publish it, and install the tarball into a user project of its own. */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is dist/test/helpers/pack.js). */
export const projectRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');

let packed: string | undefined;
/** `npm pack` of the built project, once per process: the tarball's path. */
export function packProject(): string {
  if (packed) return packed;
  const dir = mkdtempSync(join(tmpdir(), 'durable-mcp-pack-'));
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: projectRoot, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  packed = join(dir, out);
  return packed;
}

/**
 * Copy a user project (a folder with a package.json) to a temp folder, point its `durable-mcp` dependency at the
 * packed tarball, and `npm install` it. Returns the folder.
 */
export function installUserProject(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'durable-mcp-user-'));
  cpSync(source, dir, { recursive: true, filter: (p) => !p.includes('node_modules') });
  const pkgPath = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  pkg.dependencies = { ...pkg.dependencies, 'durable-mcp': `file:${packProject()}` };
  writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  return dir;
}
