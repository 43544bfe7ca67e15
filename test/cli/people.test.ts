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
    for (const who of ['ana@example.com', 'bob@example.com']) {
      const ok = await run(['answer', 'cli-people', request.id, '--as', who], h.cliEnv);
      assert.equal(ok.code, 0, ok.stderr);
    }
    const result = JSON.parse((await run(['result', 'cli-people', '--json'], h.cliEnv)).stdout);
    assert.equal(result.output, 'sent 5 to bob');
    assert.equal(result.metadata.answeredBy, 'ana@example.com, bob@example.com');
    assert.equal(result.metadata.answeredVia, 'cli');
  });
});
