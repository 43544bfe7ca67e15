/**
 * N of M (docs/people.md): the approval policy's `approvals: 2` with three assignees: two distinct accepts run the tool
 * once (the same person twice counts once); one decline declines and the tool never runs. A call's own `approvals: 2`
 * on a plain form: both people must accept the same answer.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpToolCall, type McpToolCallInput } from '../../src/workflows/index.js';
import { pendingDetailsQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';
import { suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

describe('N of M: a request that needs more than one person', () => {
  const dir = tempDir();
  const logPath = join(dir, 'fx.jsonl');
  const suite = suiteEnvironment({
    name: 'n-of-m',
    logPath,
    mcpConfig: {
      mcpServers: {
        fx: {
          command: [process.execPath, fixtureServerPath],
          env: { FIXTURE_LOG: logPath },
          approval: { tools: ['transfer'], approvals: 2, assignees: { users: ['ana@example.com', 'bob@example.com', 'carl@example.com'] } },
        },
      },
    },
  });
  let n = 0;
  const start = (input: McpToolCallInput) =>
    suite.client.workflow.start(mcpToolCall, { taskQueue: suite.taskQueue, workflowId: `n-of-m-${++n}-${Date.now()}`, args: [input] });
  const submit = (handle: WorkflowHandle, answer: Record<string, unknown>, by: string) =>
    handle.executeUpdate(submitAnswerUpdate, { args: [answer as never, { by }] });
  const runs = () => readFixtureLog(logPath).filter((e) => e.event === 'side_effect' && e.tool === 'transfer');

  it('2 of 3: the same person twice counts once; two distinct accepts run the tool once', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'dan', amount: 7 } });
    const [request] = await waitForPending(handle);
    const [details] = await handle.query(pendingDetailsQuery);
    assert.deepEqual(details!.context.approvals, { required: 2, accepted: [] });
    assert.deepEqual(details!.context.assignees, { users: ['ana@example.com', 'bob@example.com', 'carl@example.com'] });
    const counted = { id: request!.id, action: 'accept', awaiting: 1, required: 2, acceptedBy: ['ana@example.com'] };
    assert.deepEqual(await submit(handle, { id: request!.id, ok: true }, 'ana@example.com'), counted);
    // The same person again: counted nothing, and the result says so.
    assert.deepEqual(await submit(handle, { id: request!.id, ok: true }, 'ana@example.com'), { ...counted, repeated: true });
    assert.deepEqual((await handle.query(pendingDetailsQuery))[0]!.context.approvals, { required: 2, accepted: ['ana@example.com'] });
    assert.equal(runs().length, 0, 'nothing ran after one accept');
    assert.deepEqual(await submit(handle, { id: request!.id, ok: true }, 'bob@example.com'), { id: request!.id, action: 'accept' });
    const result = await handle.result();
    assert.equal(result.output, 'sent 7 to dan');
    assert.equal(result.metadata?.approval, 'approved');
    assert.equal(result.metadata?.answeredBy, 'ana@example.com, bob@example.com');
    assert.equal(runs().length, 1, 'the tool ran once');
  });

  it('one person counts once whatever the route: the person a sign-in vouches for, any case or width, and the CLI', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'eve', amount: 3 } });
    const [request] = await waitForPending(handle);
    const as = (by: string, person?: string) =>
      handle.executeUpdate(submitAnswerUpdate, {
        args: [
          { id: request!.id, ok: true },
          { by, source: person ? 'oidc' : 'cli', ...(person ? { person } : {}) },
        ],
      });
    // Signed in: the label names the issuer and subject; the person is the email.
    assert.equal((await as('ana@example.com (oidc https://issuer.example sub=ana-1)', 'ana@example.com')).awaiting, 1);
    // The same person through the CLI, in capitals, and in full-width letters: still one.
    assert.equal((await as('ANA@EXAMPLE.COM')).awaiting, 1);
    assert.equal((await as('\uff41\uff4e\uff41@example.com')).awaiting, 1);
    assert.deepEqual((await handle.query(pendingDetailsQuery))[0]!.context.approvals, {
      required: 2,
      accepted: ['ana@example.com (oidc https://issuer.example sub=ana-1)'],
    });
    assert.equal(runs().filter((r) => (r.args as { to?: string } | undefined)?.to === 'eve').length, 0, 'nothing ran');
    assert.equal((await as('bob@example.com (oidc https://issuer.example sub=bob-2)', 'bob@example.com')).awaiting, undefined);
    assert.equal((await handle.result()).output, 'sent 3 to eve');
  });

  it('one decline declines: the tool never runs', async () => {
    const before = runs().length;
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'eve', amount: 9 } });
    const [request] = await waitForPending(handle);
    await submit(handle, { id: request!.id, ok: true }, 'ana@example.com');
    await submit(handle, { id: request!.id, ok: false, reason: 'declined' }, 'carl@example.com');
    const result = await handle.result();
    assert.equal(result.isError, true);
    assert.equal(result.metadata?.approval, 'declined');
    assert.equal(result.metadata?.answeredBy, 'carl@example.com');
    assert.equal(runs().length, before, 'the tool never ran');
  });

  it("a call's approvals: 2 on a form: each accept must give the same answer", async () => {
    const handle = await start({ server: 'fx', tool: 'ask_name', approvals: 2, elicitation: { holdFor: 1 } });
    const [request] = await waitForPending(handle);
    assert.equal((await submit(handle, { id: request!.id, ok: true, data: { name: 'Zed' } }, 'ana')).awaiting, 1);
    await assert.rejects(submit(handle, { id: request!.id, ok: true, data: { name: 'Other' } }, 'bob'), (err: Error & { cause?: Error }) => {
      assert.match(err.cause?.message ?? '', /differs from the first accept/);
      return true;
    });
    await submit(handle, { id: request!.id, ok: true, data: { name: 'Zed' } }, 'bob');
    assert.deepEqual(await handle.result(), { output: 'hello Zed', isError: false });
  });
});
