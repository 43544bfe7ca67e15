import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { livePids, spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { startDevRetrying } from '../helpers/cli.js';
import { tempDir } from '../helpers/temporal.js';
import { freePort, stablePort } from '../helpers/ports.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = resolve(here, '..', '..', 'src', 'cli', 'main.js');
const repo = resolve(here, '..', '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function run(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((res) => {
    execFile(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const cleanEnv = () => {
  const env: Record<string, string | undefined> = { ...process.env, TEMPORAL_ADDRESS: undefined, CI: process.env.CI };
  return env;
};

function startDev(dataDir: string, port: number, uiPort: number): Promise<SpawnedProcess> {
  return startDevRetrying(
    () => spawnNode([cli, 'dev', '--data-dir', dataDir, '--port', String(port), '--ui-port', String(uiPort)], cleanEnv()),
    /Ctrl-C stops everything/,
  );
}

async function waitPending(workflowId: string, env: Record<string, string>, count = 1): Promise<any[]> {
  for (let i = 0; i < 300; i++) {
    const r = await run(['pending', workflowId, '--json'], env);
    if (r.code === 0) {
      const rows = JSON.parse(r.stdout);
      if (rows[0].pending.length >= count) return rows[0].pending;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no pending request');
}

describe('the durable-mcp CLI against `dev`', () => {
  const devs: SpawnedProcess[] = [];
  after(async () => {
    for (const d of devs) await d.kill('SIGKILL');
  });

  it('call → pending shows the request → an invalid answer is refused naming the field → a valid answer → result prints the output', async () => {
    const dataDir = tempDir('durable-mcp-dev-');
    const port = await freePort();
    const dev = await startDev(dataDir, port, await freePort());
    devs.push(dev);
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };

    const call = await run(['call', 'demo', 'book_table', '--args', '{"restaurant":"Chez Test"}', '--workflow-id', 'cli-e2e-1'], env);
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout.trim(), 'cli-e2e-1');

    // --wait returns once the request is pending (the call was only just started).
    const waited = await run(['pending', 'cli-e2e-1', '--wait', '60', '--json'], env);
    assert.equal(waited.code, 0, waited.stderr);
    const [row] = JSON.parse(waited.stdout) as Array<{ workflowId: string; pending: Array<{ request: { id: string } }> }>;
    assert.equal(row.pending.length, 1);
    const [p] = await waitPending('cli-e2e-1', env);
    assert.equal(p.request.id, row.pending[0].request.id);
    assert.equal(p.request.kind, 'input');
    assert.match(p.request.prompt, /Chez Test/);
    // The context: where the request comes from, when it was asked and the call's arguments (as JSON text).
    const { askedAt, ...context } = p.context as typeof p.context & { askedAt?: string };
    assert.deepEqual(context, { callId: 'c1', server: 'demo', tool: 'book_table', arguments: '{"restaurant":"Chez Test"}' });
    assert.ok(askedAt && Date.parse(askedAt) <= Date.now(), `askedAt is a past instant: ${askedAt}`);

    const human = await run(['pending'], env);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`cli-e2e-1\\s+${p.request.id.replace(/\./g, '\\.')}\\s+input\\s+demo/book_table`));

    const bad = await run(['answer', 'cli-e2e-1', p.request.id, '--data', '{"name":"Ada","guests":"two","date":"2026-12-24"}'], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /field "guests": must be an integer/);

    const missing = await run(['answer', 'cli-e2e-1', 'no-such-request', '--data', '{}'], env);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /no pending request with id "no-such-request"/);

    const unknown = await run(['result', 'no-such-workflow'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /no workflow with id "no-such-workflow"/);

    const good = await run(['answer', 'cli-e2e-1', p.request.id, '--data', '{"name":"Ada","guests":2,"date":"2026-12-24"}'], env);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /accept/);

    const result = await run(['result', 'cli-e2e-1'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'Booked Chez Test for 2 on 2026-12-24 under "Ada" (inside).');

    const unreachable = await run(['pending', 'cli-e2e-1'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.notEqual(unreachable.code, 0);
    assert.match(unreachable.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);

    await dev.kill('SIGINT');
    assert.equal(await dev.exited, 0, dev.output().slice(-1000));
    assert.deepEqual(livePids(dataDir), [], 'Ctrl-C leaves no Temporal server running');
  });

  it('stopping dev while a request is pending and starting it again keeps the workflow: answer it and get the result', async () => {
    const dataDir = tempDir('durable-mcp-dev-');
    // Below the ephemeral range: no connection of a parallel test takes them while dev is down (./helpers/ports.ts).
    const port = await stablePort();
    const uiPort = await stablePort();
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    const first = await startDev(dataDir, port, uiPort);
    devs.push(first);
    assert.equal((await run(['call', 'demo', 'connect_account', '--workflow-id', 'cli-e2e-2'], env)).code, 0);
    const [p] = await waitPending('cli-e2e-2', env);
    assert.equal(p.request.kind, 'authorization');

    await first.kill('SIGINT');
    assert.equal(await first.exited, 0);
    assert.deepEqual(livePids(dataDir), []);

    const second = await startDev(dataDir, port, uiPort);
    devs.push(second);
    const [again] = await waitPending('cli-e2e-2', env);
    assert.equal(again.request.id, p.request.id, 'the same request, not a new one');
    assert.equal((await run(['answer', 'cli-e2e-2', p.request.id], env)).code, 0);
    const result = await run(['result', 'cli-e2e-2'], env);
    assert.equal(result.stdout.trim(), 'Connected to example.');
    await second.kill('SIGINT');
    assert.equal(await second.exited, 0);
  });

  it('pending --wait needs a workflow id, and says so', async () => {
    const r = await run(['pending', '--wait'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /pending --wait needs a workflow id/);
    const bad = await run(['pending', 'x', '--wait', '9999'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--wait must be a whole number of seconds from 1 to 600, got "9999"/);
  });

  it('call --first-wait takes whole seconds from 1 to 600, and says so (exit 2, nothing started)', async () => {
    for (const value of ['0', '1.5', 'abc', '601']) {
      const r = await run(['call', 'fx', 'echo', '--first-wait', value], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`--first-wait must be a whole number of seconds from 1 to 600, got "${value.replace('.', '\\.')}"`));
    }
  });

  it('a SIGTERM while dev is still starting stops its Temporal server too (nothing left running)', async () => {
    const dataDir = tempDir('durable-mcp-dev-');
    const dev = spawnNode([cli, 'dev', '--data-dir', dataDir, '--port', String(await freePort()), '--ui-port', String(await freePort())], cleanEnv());
    devs.push(dev);
    // The dev server's command line names its SQLite file (the node process's names only the directory).
    const db = join(dataDir, 'temporal.db');
    try {
      for (let i = 0; i < 600 && livePids(db).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(livePids(db).length > 0, `the dev server process started: ${dev.output().slice(-500)}`);
      dev.child.kill('SIGTERM');
      assert.equal(await dev.exited, 0, dev.output().slice(-1000));
      for (let i = 0; i < 100 && livePids(db).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(livePids(db), [], 'no Temporal server left running');
    } finally {
      for (const pid of livePids(db)) process.kill(pid, 'SIGKILL');
    }
  });

  it('dev refuses a taken Temporal or UI port, naming the port and the flag; nothing is started, no database is created', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    try {
      for (const [flags, what, flag] of [
        [['--port', String(taken), '--ui-port', String(await freePort())], 'Temporal gRPC', '--port'],
        [['--port', String(await freePort()), '--ui-port', String(taken)], 'Temporal UI', '--ui-port'],
      ] as const) {
        const dataDir = join(tempDir('durable-mcp-dev-'), 'data');
        const r = await run(['dev', '--data-dir', dataDir, ...flags], cleanEnv() as Record<string, string>);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, new RegExp(`port ${taken} \\(${what}\\) is already in use.*Nothing was started\\. Choose another port with ${flag} <port>`));
        assert.doesNotMatch(r.stdout, /Temporal dev server:|data:/, 'no server is reported');
        assert.equal(existsSync(dataDir), false, 'no data folder, no database');
        assert.deepEqual(livePids(dataDir), [], 'no Temporal server started');
      }
    } finally {
      blocker.close();
    }
  });

  it('every command has --help', async () => {
    for (const cmd of ['dev', 'worker', 'inbox', 'codec-server', 'call', 'pending', 'answer', 'decline', 'cancel', 'result', 'health']) {
      const r = await run([cmd, '--help'], {});
      assert.equal(r.code, 0, cmd);
      assert.match(r.stdout, new RegExp(`Usage: durable-mcp ${cmd}`));
    }
  });
});

describe('the README', () => {
  it('opens with the two commands that `npm start` and `.ci/run` actually run', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    const firstLines = readme.split('\n').slice(0, 15).join('\n');
    assert.match(firstLines, /npm ci && npm start/);
    assert.match(firstLines, /npm ci && npm test/);
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    assert.match(pkg.scripts.start, /cli\/main\.js dev/);
    assert.match(pkg.scripts.test, /run-tests/);
    const ci = readFileSync(join(repo, '.ci', 'run'), 'utf8');
    assert.match(ci, /^npm ci\b/m);
    assert.match(ci, /^npm test$/m);
  });

  it('names `npm test -- <file fragment>` right after them, and the runner has --help (runs nothing) and refuses an unknown option', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    const block = readme.split('```')[1] ?? '';
    assert.match(block, /^npm test -- \S+ +# only the test files whose path contains a fragment \(--except=FRAGMENT .*npm test -- --help\)$/m);
    const runner = join(repo, 'dist', 'scripts', 'run-tests.js');
    const help = spawnSync(process.execPath, [runner, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^usage: npm test -- \[FRAGMENT\.\.\.\] \[--except=FRAGMENT\.\.\.\]/);
    assert.match(help.stdout, /DURABLE_MCP_TEST_CONCURRENCY=N/);
    assert.doesNotMatch(help.stdout, /^(TAP version|# tests)/m, 'no test ran');
    const unknown = spawnSync(process.execPath, [runner, '-x', 'cli/nothing'], { encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /run-tests: unknown option "-x"; see: npm test -- --help/);
  });
});
