/**
 * Approvals from the command line (docs/approvals.md): `call --ask-approval`, `pending --json`, `answer --data`, `decline`, `result --json`;
 * what `pending` shows is every argument that runs, whole (issue 40), and a call its tool's schema refuses asks nobody.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliHarness, EXIT, run } from '../helpers/cli.js';

describe('approvals from the CLI (dev server, a worker process, the fixture server)', () => {
  const h = cliHarness();

  it('a call asking for approval waits; an invalid edit is refused (exit 5), an edit is approved, a decline is a typed result', async () => {
    await h.startWorkerProcess();
    const started = await run(['call', 'fx', 'transfer', '--args', '{"to":"bob","amount":5}', '--ask-approval', '--workflow-id', 'cli-approve'], h.cliEnv);
    assert.equal(started.code, 0, started.stderr);
    const [row] = JSON.parse((await run(['pending', 'cli-approve', '--wait', '60', '--json'], h.cliEnv)).stdout) as Array<{
      pending: Array<{ request: { id: string; prompt: string }; context: { approval?: { editable: boolean }; arguments?: string } }>;
    }>;
    const { request, context } = row!.pending[0]!;
    assert.match(request.prompt, /Allow server "fx" to run tool "Transfer money"/);
    assert.equal(context.approval?.editable, true);
    assert.equal(context.arguments, '{"to":"bob","amount":5}');

    const refused = await run(['answer', 'cli-approve', request.id, '--data', '{"to":"bob","amount":5000}'], h.cliEnv);
    assert.equal(refused.code, EXIT.REFUSED, refused.stderr);
    assert.match(refused.stderr, /amount/);
    const ok = await run(['answer', 'cli-approve', request.id, '--data', '{"to":"bob","amount":8}', '--as', 'zoe'], h.cliEnv);
    assert.equal(ok.code, 0, ok.stderr);
    const result = JSON.parse((await run(['result', 'cli-approve', '--json'], h.cliEnv)).stdout);
    assert.equal(result.output, 'sent 8 to bob');
    assert.equal(result.metadata.approval, 'approved');
    assert.equal(result.metadata.answeredBy, 'zoe');
    assert.deepEqual(result.metadata.approvedArguments, { to: 'bob', amount: 8 });

    assert.equal(
      (await run(['call', 'fx', 'transfer', '--args', '{"to":"eve","amount":1}', '--ask-approval', '--workflow-id', 'cli-decline'], h.cliEnv)).code,
      0,
    );
    const id = JSON.parse((await run(['pending', 'cli-decline', '--wait', '60', '--json'], h.cliEnv)).stdout)[0].pending[0].request.id as string;
    assert.equal((await run(['decline', 'cli-decline', id, '--as', 'yan'], h.cliEnv)).code, 0);
    const declined = await run(['result', 'cli-decline', '--json'], h.cliEnv);
    const body = JSON.parse(declined.stdout);
    assert.equal(body.isError, true);
    assert.equal(body.metadata.approval, 'declined');
    assert.equal(body.metadata.answeredBy, 'yan');
    assert.match(body.output, /did not run: a person \(yan\) declined/);
  });

  it('a padded argument is shown whole by `pending` and `pending --json`; what ran is what was shown', async () => {
    if (h.workers.length === 0) await h.startWorkerProcess();
    const to = `${'a'.repeat(1200)}mallory-offshore`;
    const json = JSON.stringify({ to, amount: 5 });
    assert.equal((await run(['call', 'fx', 'transfer', '--args', json, '--ask-approval', '--workflow-id', 'cli-padded'], h.cliEnv)).code, 0);
    const text = await run(['pending', 'cli-padded', '--wait', '60'], h.cliEnv);
    assert.equal(text.code, 0, text.stderr);
    const line = text.stdout.split('\n').find((l) => l.trim().startsWith('arguments:'));
    assert.equal(line?.trim(), `arguments: ${json}`, 'every key and value, the real value after character 1000 too');
    const [row] = JSON.parse((await run(['pending', 'cli-padded', '--json'], h.cliEnv)).stdout) as Array<{
      pending: Array<{ request: { id: string }; context: { arguments?: string } }>;
    }>;
    assert.equal(row!.pending[0]!.context.arguments, json);
    assert.equal((await run(['answer', 'cli-padded', row!.pending[0]!.request.id, '--as', 'zoe'], h.cliEnv)).code, 0);
    const result = JSON.parse((await run(['result', 'cli-padded', '--json'], h.cliEnv)).stdout);
    assert.equal(result.output, `sent 5 to ${to}`);
    assert.deepEqual(result.metadata.approvedArguments, { to, amount: 5 });
  });

  it("a call its tool's schema refuses asks nobody and never runs: the failure names the field", async () => {
    if (h.workers.length === 0) await h.startWorkerProcess();
    // --wait: the call's outcome (a call that asked a person would wait for one, and time out here).
    const args = ['--args', '{"to":"bob","amount":"five"}', '--ask-approval', '--workflow-id', 'cli-bad', '--wait', '--json'];
    const call = await run(['call', 'fx', 'transfer', ...args], h.cliEnv);
    assert.notEqual(call.code, 0);
    assert.match(
      call.stdout + call.stderr,
      /InvalidInput[\s\S]*field \\?"amount\\?" must be number, got \\?"five\\?"[\s\S]*nobody was asked and the tool did not run/,
    );
    const result = await run(['result', 'cli-bad', '--json'], h.cliEnv);
    assert.notEqual(result.code, 0);
    assert.match(result.stdout, /InvalidInput/);
    assert.doesNotMatch(result.stdout, /"approval"/, 'no approval was ever decided');
  });
});
