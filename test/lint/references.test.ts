/**
 * No comment or page points to a file outside the repository (issue 42): the design document the project started
 * from is not part of it, so a reader of the code or the docs is sent to docs/*.md instead.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.tools', '.data']);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.(ts|cts|mjs|js|md|json|sh|py|go|rs|yml|yaml)$/.test(name) || name === 'run' ? [p] : [];
  });
}

// Built from parts, so this file does not name what it looks for.
const outside = [new RegExp(['DE', 'SIGN(\\.md)?\\s*§'].join('')), new RegExp(['DE', 'SIGN\\.md'].join('')), new RegExp(['\\.\\./', 'shared/'].join(''))];

describe('references', () => {
  it('no file in the repository points to a document outside it', () => {
    const files = ['src', 'test', 'scripts', 'docs', 'bench', 'examples', '.ci'].flatMap((d) => walk(join(root, d)));
    files.push(join(root, 'README.md'), join(root, 'eslint.config.js'), join(root, 'package.json'));
    assert.ok(files.length > 300, `walked ${files.length} files`);
    const found: string[] = [];
    for (const file of files) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (outside.some((re) => re.test(line))) found.push(`${relative(root, file)}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
