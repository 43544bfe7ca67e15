/**
 * Addressed requests and N of M from the command line (docs/people.md): `call --assignee … --role … --approvals 2`,
 * the assignees in `pending --json`, two distinct `answer --as` accepts run the tool once, recorded with source cli.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliHarness, run } from '../helpers/cli.js';

describe('addressed requests from the CLI (dev server, a worker process, the fixture server)', () => {
  const h = cliHarness();

  it('call --assignee/--role/--approvals 2: pending --json shows them; two people accept; the result names both, via cli', async () => {
    await h.startWorkerProcess();
    const started = await run(
      [
        'call',
        'fx',
        'transfer',
        '--args',
        '{"to":"bob","amount":5}',
        '--ask-approval',
        '--assignee',
        'ana@example.com',
        '--assignee',
        'bob@example.com',
        '--role',
        'finance',
        '--approvals',
        '2',
        '--workflow-id',
        'cli-people',
      ],
      h.cliEnv,
    );
    assert.equal(started.code, 0, started.stderr);
    const [row] = JSON.parse((await run(['pending', 'cli-people', '--wait', '60', '--json'], h.cliEnv)).stdout) as Array<{
      pending: Array<{ request: { id: string }; context: { assignees?: unknown; approvals?: unknown } }>;
    }>;
    const { request, context } = row!.pending[0]!;
    assert.deepEqual(context.assignees, { users: ['ana@example.com', 'bob@example.com'], roles: ['finance'] });
    assert.deepEqual(context.approvals, { required: 2, accepted: [] });
    // Text `pending` shows who may answer and how many must (issue 40).
    const text = (await run(['pending', 'cli-people'], h.cliEnv)).stdout;
    assert.match(text, /^ {4}for: ana@example\.com, bob@example\.com, role finance$/m);
    assert.match(text, /^ {4}approvals: 0 of 2 accepted; 2 more needed$/m);
    // The first of two accepts says so; the same person again counts nothing and is not a success.
    const first = await run(['answer', 'cli-people', request.id, '--as', 'ana@example.com'], h.cliEnv);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), `${request.id}: accepted (1 of 2; waiting for 1 more person)`);
    const again = await run(['answer', 'cli-people', request.id, '--as', 'ANA@example.com'], h.cliEnv);
    assert.equal(again.code, 5, again.stderr);
    assert.match(again.stdout, /not counted: this person has already accepted; 1 of 2 \(accepted by ana@example\.com\); waiting for 1 more person/);
    assert.match((await run(['pending', 'cli-people'], h.cliEnv)).stdout, /^ {4}approvals: 1 of 2 accepted \(accepted by ana@example\.com\); 1 more needed$/m);
    const last = await run(['answer', 'cli-people', request.id, '--as', 'bob@example.com'], h.cliEnv);
    assert.equal(last.code, 0, last.stderr);
    assert.equal(last.stdout.trim(), `${request.id}: accept`);
    const result = JSON.parse((await run(['result', 'cli-people', '--json'], h.cliEnv)).stdout);
    assert.equal(result.output, 'sent 5 to bob');
    assert.equal(result.metadata.answeredBy, 'ana@example.com, bob@example.com');
    assert.equal(result.metadata.answeredVia, 'cli');

    // `history`: who answered what, when, by which channel; by workflow and by person (visibility lags a write).
    let shown = '';
    for (let i = 0; i < 60 && !shown.includes(request.id); i++) {
      shown = (await run(['history', 'cli-people'], h.cliEnv)).stdout;
      if (!shown.includes(request.id)) await new Promise((r) => setTimeout(r, 500));
    }
    assert.match(shown, new RegExp(`^\\S+  cli-people  ${request.id.replace(/\./g, '\\.')}  accepted$`, 'm'));
    assert.match(shown, /^ {4}fx\/transfer: Allow server "fx" to run tool/m);
    assert.match(shown, /^ {4}by ana@example\.com, bob@example\.com, via cli$/m);
    const byBob = JSON.parse((await run(['history', '--by', 'BOB@example.com', '--json'], h.cliEnv)).stdout) as Array<{ workflowId: string; source?: string }>;
    assert.ok(byBob.some((r) => r.workflowId === 'cli-people' && r.source === 'cli'));
    assert.equal((await run(['history', '--by', 'nobody-at-all', '--json'], h.cliEnv)).stdout.trim(), '[]');
    const bad = await run(['history', '--since', 'soon'], h.cliEnv);
    assert.equal(bad.code, 2);
  });
});
