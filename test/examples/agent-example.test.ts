/**
 * examples/agent: a user project with an AI SDK agent whose MCP tools are durable, installed from the packed package
 * beside `@temporalio/ai-sdk` 1.23.0. npm keeps one copy of `@temporalio/workflow` (two in one bundle break
 * workflows), and the example's tests pass: on the 1.23 line as the example pins it, and on 1.24 with npm overrides
 * that make `@temporalio/ai-sdk` use the project's Temporal packages (docs/agents.md, "One copy of Temporal").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installUserProject, projectRoot, runUserProjectTests, testCounts } from '../helpers/pack.js';
import { scratchDir } from '../helpers/scratch.js';
import { cpSync } from 'node:fs';

const example = join(projectRoot, 'examples', 'agent');

/** The versions of `name` npm installed in `dir` (every copy in the tree). */
function installedVersions(dir: string, name: string): string[] {
  const out = execFileSync('npm', ['ls', name, '--all', '--json'], { cwd: dir, encoding: 'utf8' });
  const found = new Set<string>();
  (function walk(d: { version?: string; dependencies?: Record<string, unknown> }, key?: string) {
    if (key === name && d.version) found.add(d.version);
    for (const [k, child] of Object.entries(d.dependencies ?? {})) walk(child as never, k);
  })(JSON.parse(out));
  return [...found];
}

function check(dir: string, line: string): void {
  assert.deepEqual(installedVersions(dir, '@temporalio/workflow'), [line], 'one copy of @temporalio/workflow');
  const { status, out } = runUserProjectTests(dir);
  assert.equal(status, 0, `the example's tests failed on ${line}:\n${out.slice(-6000)}`);
  const { pass, fail } = testCounts(out);
  assert.equal(fail, 0);
  assert.equal(pass, 3, `every test of the example ran (${pass} passed)`);
}

describe('examples/agent: an AI SDK agent with durable MCP tools, in a user project of its own', () => {
  it('on @temporalio 1.23 (as @temporalio/ai-sdk 1.23.0 pins it): one copy of @temporalio/workflow, and its tests pass', { timeout: 900_000 }, () => {
    check(installUserProject(example), '1.23.0');
  });

  it('on @temporalio 1.24, with overrides for @temporalio/ai-sdk: one copy, and its tests pass', { timeout: 900_000 }, () => {
    // The example as a user on 1.24 writes it: the Temporal packages at 1.24.0, and npm overrides so that
    // @temporalio/ai-sdk's exact 1.23.0 dependencies resolve to them.
    const source = scratchDir('durable-mcp-agent-124-');
    cpSync(example, source, { recursive: true, filter: (p) => !p.includes('node_modules') });
    const pkgPath = join(source, 'package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
    for (const deps of [pkg.dependencies, pkg.devDependencies])
      for (const name of Object.keys(deps)) if (name.startsWith('@temporalio/') && name !== '@temporalio/ai-sdk') deps[name] = '1.24.0';
    pkg.overrides = {
      '@temporalio/activity': '1.24.0',
      '@temporalio/client': '$@temporalio/client',
      '@temporalio/common': '1.24.0',
      '@temporalio/plugin': '1.24.0',
      '@temporalio/workflow': '$@temporalio/workflow',
    };
    writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));
    check(installUserProject(source), '1.24.0');
  });
});
