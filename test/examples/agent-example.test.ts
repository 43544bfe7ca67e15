/**
 * examples/agent: a user project with an AI SDK agent whose MCP tools are durable, installed from the packed package
 * beside `@temporalio/ai-sdk` 1.23.0. npm keeps one copy of `@temporalio/workflow` (two in one bundle break
 * workflows), and the example's tests pass: on the 1.23 line as the example pins it (only the Temporal packages it
 * uses itself), and on 1.24 with npm overrides that make `@temporalio/ai-sdk` use the project's Temporal packages
 * (docs/agents.md, "One copy of Temporal"). On 1.23, its README's run: `npm start` (the worker with both plugins, the
 * bank over stdio from mcp.json, the scripted model) against a Temporal dev server, driven by `npx durable-mcp`.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnNode } from '../../scripts/processes.js';
import { installedVersions, installUserProject, projectRoot, runUserProjectTests, sh, testCounts } from '../helpers/pack.js';
import { scratchDir } from '../helpers/scratch.js';
import { createLocalEnv } from '../helpers/temporal.js';
import { cpSync } from 'node:fs';

const example = join(projectRoot, 'examples', 'agent');

function check(dir: string, line: string): void {
  assert.deepEqual(installedVersions(dir, '@temporalio/workflow'), [line], 'one copy of @temporalio/workflow');
  const { status, out } = runUserProjectTests(dir);
  assert.equal(status, 0, `the example's tests failed on ${line}:\n${out.slice(-6000)}`);
  const { pass, fail } = testCounts(out);
  assert.equal(fail, 0);
  assert.equal(pass, 3, `every test of the example ran (${pass} passed)`);
}

/** `npx durable-mcp …` in the project, as its README types it (task queue `agents`): the exit code and stdout. */
async function durableMcp(dir: string, address: string, args: string[]): Promise<string> {
  const r = await sh('npx', ['durable-mcp', ...args], dir, { TEMPORAL_ADDRESS: address, DURABLE_MCP_TASK_QUEUE: 'agents', NODE_OPTIONS: '' });
  assert.equal(r.code, 0, `npx durable-mcp ${args.join(' ')}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The README's run: `npm start` against a dev server, an agent started and answered with the CLI. */
async function runAsTheReadmeSays(dir: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  assert.equal(pkg.scripts.start, 'node worker.js', '`npm start` runs the worker');
  const env = await createLocalEnv({ searchAttributes: true, encryption: false });
  const address = env.address;
  const worker = spawnNode(['worker.js'], { TEMPORAL_ADDRESS: address, NODE_OPTIONS: '', NODE_TEST_CONTEXT: undefined }, dir);
  try {
    await worker.waitFor(/worker ready: .*task queue "agents", MCP server "bank" \(mcp\.json\), model: the scripted model "assistant"/, 120_000);
    const pending = async (id: string) =>
      (
        JSON.parse(await durableMcp(dir, address, ['pending', id, '--wait', '60', '--json'])) as Array<{
          pending: Array<{ request: { id: string; prompt: string } }>;
        }>
      )[0]!.pending;
    const id = (await durableMcp(dir, address, ['agent', 'assistant', '--server', 'bank', '--prompt', 'Pay bob what I allow', '--no-follow'])).trim();
    const [asked] = await pending(id);
    assert.equal(asked?.request.prompt, 'How much may the assistant spend?');
    await durableMcp(dir, address, ['answer', id, asked!.request.id, '--data', '{"amount": 40}']);
    let approval = (await pending(id))[0];
    for (let i = 0; approval?.request.id === asked!.request.id && i < 20; i++) approval = (await pending(id))[0];
    assert.match(approval!.request.prompt, /Allow server "bank" to run tool "transfer"\?/);
    await durableMcp(dir, address, ['answer', id, approval!.request.id]);
    const result = JSON.parse(await durableMcp(dir, address, ['result', id, '--json'])) as { text: string };
    assert.equal(result.text, 'Done. The bank said: sent 40 to bob');
  } finally {
    await worker.kill('SIGINT');
    await env.teardown();
  }
}

describe('examples/agent: an AI SDK agent with durable MCP tools, in a user project of its own', () => {
  it(
    'on @temporalio 1.23 (as @temporalio/ai-sdk 1.23.0 pins it): one copy of @temporalio/workflow, its tests pass, and `npm start` runs an agent the CLI drives',
    { timeout: 900_000 },
    async () => {
      const dir = installUserProject(example);
      check(dir, '1.23.0');
      await runAsTheReadmeSays(dir);
    },
  );

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
