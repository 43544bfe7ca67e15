import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temporal.js';
import { cliHarness, EXIT, run } from '../helpers/cli.js';

describe('the CLI answers: files, stdin, URL mode, no worker, --signal (dev server, a worker process, real MCP servers)', () => {
  const h = cliHarness();

  it('--args @file, --data @file with a 200 KiB answer, --data - from stdin, a refused answer exits 5, and --data for a URL-mode request is bad usage', async () => {
    await h.startWorkerProcess();
    const dir = tempDir('cli-data-');
    writeFileSync(join(dir, 'args.json'), JSON.stringify({ text: 'from a file' }));
    const echo = await run(['call', 'fx', 'echo', '--args', `@${join(dir, 'args.json')}`, '--wait'], h.cliEnv);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout.trim(), 'echo: from a file');

    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-big'], h.cliEnv)).code, 0);
    const waited = await run(['pending', 'cli-big', '--wait', '60', '--json'], h.cliEnv);
    const id = JSON.parse(waited.stdout)[0].pending[0].request.id as string;
    const refused = await run(['answer', 'cli-big', id, '--data', '{"name":42}'], h.cliEnv);
    assert.equal(refused.code, EXIT.REFUSED);
    assert.match(refused.stderr, /field "name"/);
    const name = 'x'.repeat(200 * 1024);
    writeFileSync(join(dir, 'big.json'), JSON.stringify({ name }));
    const big = await run(['answer', 'cli-big', id, '--data', `@${join(dir, 'big.json')}`], h.cliEnv);
    assert.equal(big.code, 0, big.stderr);
    const result = await run(['result', 'cli-big', '--json'], h.cliEnv);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).output, `hello ${name}`);

    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-stdin'], h.cliEnv)).code, 0);
    const id2 = JSON.parse((await run(['pending', 'cli-stdin', '--wait', '60', '--json'], h.cliEnv)).stdout)[0].pending[0].request.id as string;
    const fromStdin = await run(['answer', 'cli-stdin', id2, '--data', '-', '--json'], h.cliEnv, '{"name":"Stdin"}');
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.deepEqual(JSON.parse(fromStdin.stdout), { id: id2, action: 'accept' });
    assert.equal((await run(['result', 'cli-stdin'], h.cliEnv)).stdout.trim(), 'hello Stdin');

    assert.equal((await run(['call', 'fx', 'ask_url', '--workflow-id', 'cli-url'], h.cliEnv)).code, 0);
    const id3 = JSON.parse((await run(['pending', 'cli-url', '--wait', '60', '--json'], h.cliEnv)).stdout)[0].pending[0].request.id as string;
    const urlData = await run(['answer', 'cli-url', id3, '--data', '{"x":1}'], h.cliEnv);
    assert.equal(urlData.code, EXIT.USAGE);
    assert.match(urlData.stderr, /URL-mode \(authorization\) request: it takes no --data/);
    assert.equal((await run(['answer', 'cli-url', id3], h.cliEnv)).code, 0);
  });

  it('with no worker, pending and answer fail fast naming the cause; --signal answers anyway and the call completes once a worker starts', async () => {
    const worker = h.workers.at(-1) ?? (await h.startWorkerProcess());
    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-noworker'], h.cliEnv)).code, 0);
    const id = JSON.parse((await run(['pending', 'cli-noworker', '--wait', '60', '--json'], h.cliEnv)).stdout)[0].pending[0].request.id as string;
    await worker.kill('SIGTERM');

    const pending = await run(['pending', 'cli-noworker'], h.cliEnv);
    assert.equal(pending.code, EXIT.NO_WORKER, pending.stderr);
    assert.match(pending.stderr, new RegExp(`no worker polls task queue "${h.cliEnv.DURABLE_MCP_TASK_QUEUE}"`));
    const all = await run(['pending', '--json'], h.cliEnv);
    // Listed from visibility (the workflow's memo), so still with its request. Marked unreachable when the task queue
    // shows no poller (Temporal may still show the stopped worker's poller for a while): then nothing could be reached,
    // exit 4 (docs/cli.md, the exit codes); else exit 0.
    const row = (JSON.parse(all.stdout) as Array<{ workflowId: string; pending: Array<{ request: { id: string } }>; unreachable?: string }>).find(
      (r) => r.workflowId === 'cli-noworker',
    );
    assert.deepEqual(
      row?.pending.map((p) => p.request.id),
      [id],
      `listed with its request: ${all.stdout}`,
    );
    if (row?.unreachable !== undefined) {
      assert.match(row.unreachable, /no worker/);
      assert.equal(all.code, EXIT.NO_WORKER, all.stderr);
    } else assert.equal(all.code, 0, all.stderr);
    const answer = await run(['decline', 'cli-noworker', id], h.cliEnv);
    assert.equal(answer.code, EXIT.NO_WORKER);
    assert.match(answer.stderr, /could not take the answer: .*no worker.*--signal/);
    console.log(`# measured: pending with no worker returned in ${pending.ms} ms, pending (all) in ${all.ms} ms, decline in ${answer.ms} ms`);

    const signalled = await run(['answer', 'cli-noworker', id, '--data', '{"name":"Signal"}', '--signal'], h.cliEnv);
    assert.equal(signalled.code, 0, signalled.stderr);
    assert.match(signalled.stdout, /sent as a signal/);
    await h.startWorkerProcess();
    const result = await run(['result', 'cli-noworker'], h.cliEnv);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'hello Signal');
  });
});
