// The `durable-mcp` command keeps its run bit through a clean rebuild, tried as a new user would in a clone: npx links
// the clone once (and gives the bin its run bit then), and `rm -rf dist && npm run build` writes a new
// dist/src/cli/main.js, which the build must make runnable again or npx answers "Permission denied".
import assert from 'node:assert/strict';

import { cpSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { sh } from '../helpers/pack.js';
import { scratchDir } from '../helpers/scratch.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('the durable-mcp command after a clean rebuild', () => {
  it('rm -rf dist && npm run build in a clone, then npx durable-mcp --version works (the build gives the bin its run bit)', async () => {
    const scratch = scratchDir('durable-mcp-rebuild-');
    // The clone: the files git has (tracked, and new ones not ignored) as they are in this working tree, and the
    // repository's node_modules (what `npm ci` would install), linked instead of installed again.
    const clone = join(scratch, 'clone');
    mkdirSync(clone);
    const files = await sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], repo);
    assert.equal(files.code, 0, files.stderr);
    for (const file of files.stdout.split('\0').filter(Boolean)) {
      try {
        cpSync(join(repo, file), join(clone, file), { recursive: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // deleted in the working tree, not yet in git
      }
    }
    symlinkSync(realpathSync(join(repo, 'node_modules')), join(clone, 'node_modules'));
    // An earlier build (this one's), and npx's link to the clone, made by a first run in a cache of the test's own.
    cpSync(join(repo, 'dist'), join(clone, 'dist'), { recursive: true });
    const npx = { npm_config_cache: join(scratch, 'npm-cache') };
    const first = await sh('npx', ['--yes', 'durable-mcp', '--version'], clone, npx);
    assert.equal(first.code, 0, first.stderr);

    rmSync(join(clone, 'dist'), { recursive: true, force: true });
    const build = await sh('npm', ['run', 'build'], clone);
    assert.equal(build.code, 0, `${build.stdout}\n${build.stderr}`);
    assert.ok(statSync(join(clone, 'dist', 'src', 'cli', 'main.js')).mode & 0o100, 'the rebuilt bin has its run bit');
    const again = await sh('npx', ['--yes', 'durable-mcp', '--version'], clone, npx);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), '0.1.0');
  });
});
