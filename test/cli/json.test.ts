import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixtureServerPath } from '../fixtures/paths.js';
import { livePids, spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { suiteEnvironment, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { cli, EXIT, run, startDevRetrying } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

/** Every stdout line parsed as JSON (a line that is not JSON fails the test). */
function jsonLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, any>;
      } catch {
        throw new Error(`a stdout line is not JSON: ${JSON.stringify(line)}\nstdout:\n${stdout}`);
      }
    });
}

describe('--json on the commands that run until stopped (dev, worker, inbox): one JSON object a line on stdout', () => {
  let fxConfig: string;
  let noneConfig: string;
  const procs: SpawnedProcess[] = [];
  const spawnCli = (args: string[], extraEnv: Record<string, string | undefined>) => {
    const p = spawnNode([cli, ...args], extraEnv);
    procs.push(p);
    return p;
  };
  after(async () => {
    for (const p of procs) await p.kill('SIGKILL');
  });
  // Worker processes only: the environment starts none.
  const suite = suiteEnvironment({ name: 'cli-json', searchAttributes: true, startWorker: false });
  before(async () => {
    const dir = tempDir('cli-json-');
    fxConfig = join(dir, 'fx.json');
    writeFileSync(
      fxConfig,
      JSON.stringify({ mcpServers: { fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fx.jsonl') } } } }),
    );
    noneConfig = join(dir, 'none.json');
    writeFileSync(noneConfig, JSON.stringify({ mcpServers: { off: { command: [process.execPath, fixtureServerPath], disabled: true } } }));
  });

  it('worker --json: a ready line (Temporal address, namespace, task queue, MCP servers, config), notes as JSON, then stopping and stopped on SIGTERM', async () => {
    const taskQueue = uniqueTaskQueue('cli-json-worker');
    const cliEnv = { TEMPORAL_ADDRESS: suite.env.address, DURABLE_MCP_TASK_QUEUE: taskQueue };
    const worker = spawnCli(['worker', '--json', '--mcp-config', fxConfig], { ...cliEnv, MALLOC_ARENA_MAX: undefined });
    await worker.waitFor(/"event":"ready"/);
    const ready = jsonLines(worker.stdout()).find((e) => e.event === 'ready');
    assert.deepEqual(ready, {
      event: 'ready',
      temporal: { address: suite.env.address, namespace: 'default' },
      taskQueue,
      mcpServers: ['fx'],
      mcpConfig: fxConfig,
      encryptionKeyId: null,
      model: null,
    });
    // The worker it announced runs calls.
    const echo = await run(['call', 'fx', 'echo', '--args', '{"text":"json"}', '--wait'], cliEnv);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout.trim(), 'echo: json');

    await worker.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output().slice(-1500));
    const lines = jsonLines(worker.stdout());
    assert.ok(
      lines.some((e) => e.event === 'note' && /MALLOC_ARENA_MAX is not set/.test(e.message)),
      `the tuning hint is a JSON note, not text:\n${worker.stdout()}`,
    );
    assert.deepEqual(
      lines.filter((e) => e.event === 'warning'),
      [],
      'a config with an enabled server: no warning',
    );
    assert.deepEqual(lines.slice(-2), [{ event: 'stopping', signal: 'SIGTERM' }, { event: 'stopped' }]);
  });

  it('worker and dev warn when the MCP config has no enabled server: as text, and with --json as a warning line', async () => {
    const taskQueue = uniqueTaskQueue('cli-json-none');
    const cliEnv = {
      TEMPORAL_ADDRESS: suite.env.address,
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: undefined,
      DURABLE_MCP_ENCRYPTION_KEYS_FILE: undefined,
    };

    const workerText = spawnCli(['worker', '--mcp-config', noneConfig], cliEnv);
    await workerText.waitFor(/task queue/);
    assert.match(workerText.output(), /durable-mcp worker: warning: .*none\.json has no enabled MCP server: every tool call will fail with UnknownServer/);
    await workerText.kill('SIGTERM');
    assert.equal(await workerText.exited, 0);

    const workerJson = spawnCli(['worker', '--json', '--mcp-config', noneConfig], cliEnv);
    await workerJson.waitFor(/"event":"ready"/);
    const workerWarnings = jsonLines(workerJson.stdout()).filter((e) => e.event === 'warning');
    assert.equal(workerWarnings.length, 1, workerJson.stdout());
    assert.match(workerWarnings[0].message, /none\.json has no enabled MCP server: every tool call will fail with UnknownServer/);
    await workerJson.kill('SIGTERM');
    assert.equal(await workerJson.exited, 0);

    // dev against the test's server (TEMPORAL_ADDRESS): no server of its own to start.
    const devText = spawnCli(['dev', '--mcp-config', noneConfig, '--inbox-port', '0'], cliEnv);
    await devText.waitFor(/Ctrl-C stops everything/, 90_000);
    assert.match(devText.output(), /Warning: the MCP config .*none\.json has no enabled server: every tool call will fail with UnknownServer\./);
    await devText.kill('SIGINT');
    assert.equal(await devText.exited, 0, devText.output().slice(-1500));

    const devJson = spawnCli(['dev', '--json', '--mcp-config', noneConfig, '--inbox-port', '0'], cliEnv);
    await devJson.waitFor(/"event":"ready"/, 90_000);
    const lines = jsonLines(devJson.stdout());
    const warnings = lines.filter((e) => e.event === 'warning');
    assert.equal(warnings.length, 1, devJson.stdout());
    assert.match(warnings[0].message, /none\.json has no enabled server: every tool call will fail with UnknownServer/);
    assert.ok(
      lines.some((e) => e.event === 'note' && /TEMPORAL_ADDRESS is set \(.*\): using that Temporal server, not starting one/.test(e.message)),
      devJson.stdout(),
    );
    const ready = lines.find((e) => e.event === 'ready')!;
    assert.match(ready.inboxUrl, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.deepEqual(ready, {
      event: 'ready',
      temporal: { address: suite.env.address, namespace: 'default', external: true, uiUrl: null, database: null },
      inboxUrl: ready.inboxUrl,
      codecUrl: null,
      taskQueue,
      // dev adds the built-in demo server to a file without one (docs/configuration.md "dev").
      mcpServers: ['off', 'demo'],
      mcpConfig: noneConfig,
      model: ready.model,
    });
    assert.match(ready.model, /^scripted demo model/);
    await devJson.kill('SIGINT');
    assert.equal(await devJson.exited, 0, devJson.output().slice(-1500));
    assert.deepEqual(jsonLines(devJson.stdout()).slice(-2), [{ event: 'stopping' }, { event: 'stopped' }]);
  });

  it('dev --json starting its own server: one ready line with the Temporal address, UI URL, database, inbox URL, task queue and namespace', async () => {
    const dataDir = tempDir('cli-json-dev-');
    const port = await freePort();
    const uiPort = await freePort();
    const taskQueue = uniqueTaskQueue('cli-json-dev');
    const dev = await startDevRetrying(
      () =>
        spawnCli(['dev', '--json', '--data-dir', dataDir, '--port', String(port), '--ui-port', String(uiPort), '--inbox-port', '0'], {
          TEMPORAL_ADDRESS: undefined,
          DURABLE_MCP_TASK_QUEUE: taskQueue,
          DURABLE_MCP_ENCRYPTION_KEYS: undefined,
          DURABLE_MCP_ENCRYPTION_KEYS_FILE: undefined,
        }),
      /"event":"ready"/,
    );
    const ready = jsonLines(dev.stdout()).find((e) => e.event === 'ready')!;
    const database = join(resolve(dataDir), 'temporal.db');
    assert.deepEqual(ready, {
      event: 'ready',
      temporal: { address: `127.0.0.1:${port}`, namespace: 'default', external: false, uiUrl: `http://127.0.0.1:${uiPort}`, database },
      inboxUrl: ready.inboxUrl,
      // Without a key no codec server starts (test/codec/server.test.ts runs dev with one).
      codecUrl: null,
      taskQueue,
      mcpServers: ['demo'],
      mcpConfig: null,
      model: ready.model,
    });
    assert.ok(
      jsonLines(dev.stdout()).some((e) => e.event === 'note' && /DURABLE_MCP_ENCRYPTION_KEYS=/.test(e.message)),
      `without a key, dev says how to turn encryption on:\n${dev.stdout()}`,
    );
    assert.ok(existsSync(database), 'the database it names exists');
    assert.equal((await fetch(ready.temporal.uiUrl)).status, 200, 'the UI it names answers');
    assert.equal((await fetch(ready.inboxUrl)).status, 200, 'the inbox it names answers');
    const health = await run(['health', '--json'], { TEMPORAL_ADDRESS: ready.temporal.address, DURABLE_MCP_TASK_QUEUE: ready.taskQueue });
    assert.equal(health.code, 0, health.stderr);
    assert.deepEqual(JSON.parse(health.stdout), { taskQueue, workerPolls: true });

    await dev.kill('SIGINT');
    assert.equal(await dev.exited, 0, dev.output().slice(-1500));
    const lines = jsonLines(dev.stdout());
    assert.deepEqual(lines.slice(-2), [{ event: 'stopping' }, { event: 'stopped' }]);
    assert.deepEqual(livePids(dataDir), [], 'nothing left running');
  });

  it('a failure of dev, worker or inbox with --json is one JSON error line (a bad flag too), with the documented exit code', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const dataDir = join(tempDir('cli-json-taken-'), 'data');
      const r = await run(['dev', '--json', '--data-dir', dataDir, '--port', String(taken)], { TEMPORAL_ADDRESS: '' });
      assert.equal(r.code, EXIT.USAGE, r.stderr);
      const [line, ...rest] = jsonLines(r.stdout);
      assert.deepEqual(rest, []);
      assert.equal(line.event, 'error');
      assert.equal(line.error, 'Usage');
      assert.match(line.message, new RegExp(`port ${taken} \\(Temporal gRPC\\) is already in use`));
    } finally {
      blocker.close();
    }
    const badFlag = await run(['dev', '--json', '--port', 'abc'], {});
    assert.equal(badFlag.code, EXIT.USAGE);
    assert.deepEqual(jsonLines(badFlag.stdout), [
      {
        event: 'error',
        error: 'Usage',
        message: `option '--port <port>' argument 'abc' is invalid. --port must be a positive integer, got "abc"; see: npx durable-mcp dev --help`,
      },
    ]);
    const badDuration = await run(['call', 'fx', 'echo', '--json', '--expires-in', '4 parsecs'], {});
    assert.equal(badDuration.code, EXIT.USAGE);
    const usage = JSON.parse(badDuration.stdout);
    assert.equal(usage.error, 'Usage');
    assert.match(usage.message, /--expires-in must be a Temporal Duration: .*, got "4 parsecs"/);

    const bad = await run(['worker', '--json', '--mcp-config', join(tempDir('cli-json-missing-'), 'nope.json')], { TEMPORAL_ADDRESS: suite.env.address });
    assert.notEqual(bad.code, 0);
    const [error, ...more] = jsonLines(bad.stdout);
    assert.deepEqual(more, []);
    assert.equal(error.event, 'error');
    assert.match(error.message, /nope\.json/);
  });

  it('inbox --json: a ready line with its URL and Temporal address, stopped on SIGTERM', async () => {
    const inbox = spawnCli(['inbox', '--json', '--port', '0'], { TEMPORAL_ADDRESS: suite.env.address });
    await inbox.waitFor(/"event":"ready"/);
    const ready = jsonLines(inbox.stdout()).find((e) => e.event === 'ready')!;
    assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.deepEqual(ready, { event: 'ready', url: ready.url, temporal: { address: suite.env.address, namespace: 'default' } });
    assert.equal((await fetch(ready.url)).status, 200);
    await inbox.kill('SIGTERM');
    assert.equal(await inbox.exited, 0);
    assert.deepEqual(jsonLines(inbox.stdout()).at(-1), { event: 'stopped' });
  });
});
