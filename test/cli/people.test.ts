/**
 * Addressed requests and N of M from the command line (docs/people.md): `call --assignee … --role … --approvals 2`,
 * the assignees in `pending --json`, two distinct `answer --as` accepts run the tool once, recorded with source cli;
 * text `pending` (who may answer, N of M progress, enum choices), `answer`'s N-of-M text, and `history` (issue 40).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliHarness, run } from '../helpers/cli.js';
import { suiteEnvironment } from '../helpers/temporal.js';

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
    const shown = await historyShowing(['history', 'cli-people'], request.id);
    assert.match(shown, new RegExp(`^\\S+  cli-people  ${request.id.replace(/\./g, '\\.')}  accepted$`, 'm'));
    assert.match(shown, /^ {4}fx\/transfer: Allow server "fx" to run tool/m);
    assert.match(shown, /^ {4}for: ana@example\.com, bob@example\.com, role finance$/m);
    assert.match(shown, /^ {4}by ana@example\.com, bob@example\.com, via cli \(claimed\)$/m);
    const byBob = JSON.parse((await run(['history', '--by', 'BOB@example.com', '--json'], h.cliEnv)).stdout) as Array<{ workflowId: string; source?: string }>;
    assert.ok(byBob.some((r) => r.workflowId === 'cli-people' && r.source === 'cli'));
    assert.equal((await run(['history', '--by', 'nobody-at-all', '--json'], h.cliEnv)).stdout.trim(), '[]');
    const bad = await run(['history', '--since', 'soon'], h.cliEnv);
    assert.equal(bad.code, 2);
  });

  it("pending shows each enum field's choices; history filters by workflow and by a person named whole", async () => {
    const started = await run(['call', 'fx', 'ask_form', '--workflow-id', 'cli-people-form'], h.cliEnv);
    assert.equal(started.code, 0, started.stderr);
    const text = (await run(['pending', 'cli-people-form', '--wait', '60'], h.cliEnv)).stdout;
    const fields = text.split('\n').find((l) => l.startsWith('    fields: ')) ?? '';
    assert.ok(fields.includes('"color":string (red "Red"|green "Green"|blue "Blue")'), fields);
    assert.ok(fields.includes('"size":string (s "Small"|m "Medium"|l "Large")'), fields);
    assert.ok(fields.includes('"tags":array (a|b|c)'), fields);
    assert.ok(fields.includes('"toppings":array (x "X"|y "Y")'), fields);
    const [row] = JSON.parse((await run(['pending', 'cli-people-form', '--json'], h.cliEnv)).stdout) as Array<{ pending: Array<{ request: { id: string } }> }>;
    const id = row!.pending[0]!.request.id;
    const declined = await run(['decline', 'cli-people-form', id, '--as', 'banana@example.com'], h.cliEnv);
    assert.equal(declined.code, 0, declined.stderr);

    // One workflow's history is that workflow's only, asked of visibility; all of them has both.
    const mine = await historyShowing(['history', 'cli-people-form'], id);
    assert.match(mine, /^\S+ {2}cli-people-form {2}\S+ {2}declined$/m);
    assert.match(mine, /^ {4}by banana@example\.com, via cli \(claimed\)$/m);
    assert.ok(!mine.includes('cli-people  '), mine);
    const mineJson = JSON.parse((await run(['history', 'cli-people-form', '--json'], h.cliEnv)).stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(
      mineJson.map((r) => [r.workflowId, r.id, r.outcome, r.by, r.source]),
      [['cli-people-form', id, 'declined', 'banana@example.com', 'cli']],
    );
    const all = await historyShowing(['history'], id);
    assert.ok(all.includes('  cli-people  ') && all.includes('  cli-people-form  '), all);
    // A person is named whole: ana@example.com is not banana@example.com; a subject after sub= or a whole name matches.
    const ana = JSON.parse((await run(['history', '--by', 'ana@example.com', '--since', '7d', '--json'], h.cliEnv)).stdout) as Array<{ workflowId: string }>;
    assert.deepEqual(
      ana.map((r) => r.workflowId),
      ['cli-people'],
    );
    const banana = JSON.parse((await run(['history', '--by', 'Banana@Example.com', '--json'], h.cliEnv)).stdout) as Array<{ workflowId: string }>;
    assert.deepEqual(
      banana.map((r) => r.workflowId),
      ['cli-people-form'],
    );
    assert.equal((await run(['history', '--by', ' '], h.cliEnv)).code, 2);
  });

  /** The text of `args` once it shows `requestId` (visibility lags a write by up to a second or so). */
  async function historyShowing(args: string[], requestId: string): Promise<string> {
    let shown = '';
    for (let i = 0; i < 60 && !shown.includes(requestId); i++) {
      shown = (await run(args, h.cliEnv)).stdout;
      if (!shown.includes(requestId)) await new Promise((r) => setTimeout(r, 500));
    }
    return shown;
  }
});

describe('history without the listing search attributes', () => {
  const suite = suiteEnvironment({ name: 'cli-history-unlisted', startWorker: false });

  it('says that nothing can be listed and how to register them (exit 5), never an empty history', async () => {
    const res = await run(['history'], { TEMPORAL_ADDRESS: suite.env.address, DURABLE_MCP_TASK_QUEUE: suite.taskQueue });
    assert.equal(res.code, 5, res.stderr);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /search attributes \(DurableMcpAwaitingInput, .*DurableMcpResolvedAt\) are not all registered in namespace "default"/);
    assert.match(res.stderr, /temporal operator search-attribute create --namespace default --name <name> --type <type> \(DurableMcpAwaitingInput Bool, /);
  });
});
