/**
 * One-line install (docs/agents.md, "One copy of Temporal"): a user project names only the packages it uses itself,
 * `@temporalio/worker`, `client` and `workflow` on one line, `@temporalio/ai-sdk` 1.23.0 and `ai`, and adds the packed
 * durable-mcp. npm installs it without a conflict (no ERESOLVE) and with one copy of `@temporalio/workflow` (two in one
 * workflow bundle break workflows), of `common` and `activity` too: on 1.23 as is, on 1.24 with the npm
 * overrides that `@temporalio/ai-sdk` 1.23.0's exact dependencies need. What durable-mcp uses only optionally is not
 * installed (OpenTelemetry's interceptors, envconfig, testing), and it says what to install when it is asked for.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installedVersions, installUserProject, sh } from '../helpers/pack.js';
import { scratchDir } from '../helpers/scratch.js';

/** A user project of one package.json (`durable-mcp` is added by installUserProject: the packed tarball). */
function project(line: string, overrides?: Record<string, string>): string {
  const dir = scratchDir('durable-mcp-one-line-');
  const pkg = {
    name: 'one-line-install',
    private: true,
    type: 'module',
    dependencies: {
      '@temporalio/worker': line,
      '@temporalio/client': line,
      '@temporalio/workflow': line,
      '@temporalio/ai-sdk': '1.23.0',
      ai: '^7.0.59',
    },
    ...(overrides ? { overrides } : {}),
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  return dir;
}

function oneCopyEach(dir: string, line: string, names: string[]): void {
  for (const name of names) assert.deepEqual(installedVersions(dir, `@temporalio/${name}`), [line], `one copy of @temporalio/${name}`);
  for (const name of ['envconfig', 'interceptors-opentelemetry', 'testing'])
    assert.deepEqual(installedVersions(dir, `@temporalio/${name}`), [], `@temporalio/${name} (an optional peer) is not installed`);
}

describe('durable-mcp beside @temporalio/ai-sdk, naming only the packages the project uses', () => {
  it(
    'on 1.23: installs, with one copy of each Temporal package it uses; without the optional peers it loads, and says what to install',
    { timeout: 600_000 },
    async () => {
      const dir = installUserProject(project('1.23.0')); // throws with npm's output on ERESOLVE
      oneCopyEach(dir, '1.23.0', ['workflow', 'common', 'proto', 'activity', 'client', 'worker']);
      // @temporalio/plugin (no dependencies, no state) is durable-mcp's peer at the latest 1.x, and @temporalio/ai-sdk's
      // exact 1.23.0 below it, unless the project names it (docs/agents.md).
      assert.ok(installedVersions(dir, '@temporalio/plugin').includes('1.23.0'));

      const load = await sh(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "for (const m of ['durable-mcp', 'durable-mcp/worker', 'durable-mcp/client', 'durable-mcp/ai-sdk']) await import(m); console.log('loaded')",
        ],
        dir,
      );
      assert.equal(load.stdout.trim(), 'loaded', load.stderr);

      // Without envconfig the plain variables still connect (here to a closed port: exit 3, Temporal unreachable) ...
      const plain = await sh('npx', ['durable-mcp', 'pending', 'wf-1'], dir, { TEMPORAL_ADDRESS: '127.0.0.1:9' });
      assert.equal(plain.code, 3, plain.stderr);
      assert.match(plain.stderr, /cannot reach Temporal at 127\.0\.0\.1:9/);
      // ... and what only envconfig reads is refused, naming the package.
      const profile = await sh('npx', ['durable-mcp', 'pending', 'wf-1'], dir, { TEMPORAL_PROFILE: 'prod' });
      assert.notEqual(profile.code, 0);
      assert.match(
        profile.stderr,
        /TEMPORAL_PROFILE: reading this needs @temporalio\/envconfig, which is not installed\. Run `npm install @temporalio\/envconfig`/,
      );
      // Tracing asked for without OpenTelemetry's interceptors: what to install.
      const traced = await sh('npx', ['durable-mcp', 'pending', 'wf-1'], dir, {
        TEMPORAL_ADDRESS: '127.0.0.1:9',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      });
      assert.notEqual(traced.code, 0);
      assert.match(traced.stderr, /@temporalio\/interceptors-opentelemetry is not installed: run `npm install @temporalio\/interceptors-opentelemetry`/);
    },
  );

  it('on 1.24, with the overrides @temporalio/ai-sdk 1.23.0 needs: installs, with one copy of each, @temporalio/plugin too', { timeout: 600_000 }, () => {
    const dir = installUserProject(
      project('1.24.0', {
        '@temporalio/activity': '1.24.0',
        '@temporalio/common': '1.24.0',
        '@temporalio/plugin': '1.24.0',
        '@temporalio/client': '$@temporalio/client',
        '@temporalio/workflow': '$@temporalio/workflow',
      }),
    );
    // (@temporalio/workflow-streams 1.23.0, which only ai-sdk's streaming activity loads, keeps a proto 1.23.0 of its own.)
    oneCopyEach(dir, '1.24.0', ['workflow', 'common', 'activity', 'client', 'worker', 'plugin']);
  });
});
