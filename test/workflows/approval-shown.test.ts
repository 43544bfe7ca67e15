/**
 * What a person sees is what they approve (issue 40, docs/approvals.md): the complete arguments go with the approval,
 * never cut (a padded argument hides nothing past character 1000); arguments too large to show in full, a key the
 * tool's input schema does not declare, and a value its schema refuses are refused before anyone is asked
 * (`InvalidInput` naming the field), and the tool never runs. Real parts: a dev server, a worker, the v1 SDK fixture
 * server over stdio, whose every run of `transfer` is logged with its arguments.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { argumentsDigest } from '../../src/contract/approval.js';
import { APPROVAL_ARGUMENTS_MAX } from '../../src/contract/tool-arguments.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { mcpToolCall, type McpToolCallInput } from '../../src/workflows/index.js';
import { pendingDetailsQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

describe('an approval shows everything that will run, and asks for nothing that cannot', () => {
  const log = join(tempDir(), 'fx.jsonl');
  const suite = suiteEnvironment({
    name: 'approval-shown',
    searchAttributes: true,
    mcpConfig: { mcpServers: { fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: log }, approval: 'always' } } },
  });
  let n = 0;
  const start = (input: McpToolCallInput) =>
    suite.client.workflow.start(mcpToolCall, { taskQueue: suite.taskQueue, workflowId: `approval-shown-${++n}-${Date.now()}`, args: [input] });
  const transfers = () => readFixtureLog(log).filter((e) => e.event === 'side_effect' && e.tool === 'transfer');
  let inbox: InboxHandle;
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await inbox?.close();
  });
  /** The inbox's page once it lists the workflow's approval. */
  const pageWith = (workflowId: string) =>
    eventually(async () => {
      const html = await (await fetch(inbox.url)).text();
      return html.includes(`data-workflow-id="${workflowId}"`) ? html : undefined;
    }, 'the approval in the inbox');

  it('a padded argument is shown whole: the value past character 1000 is in what the person sees, and the digest covers it', async () => {
    const to = `${'a'.repeat(1200)}mallory-offshore`;
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to, amount: 5 } });
    const [request] = await waitForPending(handle);
    const [details] = await handle.query(pendingDetailsQuery);
    const shown = details!.context.arguments!;
    assert.ok(shown.endsWith('mallory-offshore","amount":5}'), 'the end of the padded value is shown');
    assert.deepEqual(JSON.parse(shown), { to, amount: 5 }, 'every key and value, byte for byte');
    assert.equal(argumentsDigest(JSON.parse(shown)), details!.context.approval!.digest, 'the digest is of exactly what was shown');
    const listed = await suite.durable.pendingDetails(handle.workflowId);
    assert.equal(listed[0]!.context.arguments, shown, 'the client (and so `pending`) gets the same text');
    // The inbox shows it whole, pretty-printed and as the JSON that runs.
    const page = await pageWith(handle.workflowId);
    assert.ok(page.includes(`&quot;to&quot;: &quot;${to}&quot;`), 'pretty-printed, whole');
    assert.ok(page.includes(`<code>{&quot;to&quot;:&quot;${to}&quot;,&quot;amount&quot;:5}</code>`), 'the exact JSON, whole');

    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request!.id, ok: true }, { by: 'alice' }] });
    assert.equal((await handle.result()).isError, false);
    assert.deepEqual(
      transfers().map((e) => e.args),
      [{ to, amount: 5 }],
      'what ran is what was shown',
    );
  });

  it('arguments at the limit are shown whole too, where the listing keeps only a stub of the request (its form holds them again)', async () => {
    const head = JSON.stringify({ to: '', amount: 5 }).length;
    const to = `${'b'.repeat(APPROVAL_ARGUMENTS_MAX - head - 'the-real-payee'.length)}the-real-payee`;
    const args = { to, amount: 5 };
    assert.equal(JSON.stringify(args).length, APPROVAL_ARGUMENTS_MAX);
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: args });
    const [request] = await waitForPending(handle);
    const page = await pageWith(handle.workflowId);
    assert.ok(page.includes('too large to list'), 'the listing has a stub of this request');
    assert.ok(page.includes(`&quot;to&quot;: &quot;${to}&quot;`), 'pretty-printed, whole');
    assert.ok(page.includes(`<code>${JSON.stringify(args).replaceAll('"', '&quot;')}</code>`), 'the exact JSON, whole');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request!.id, ok: true }, { by: 'alice' }] });
    assert.equal((await handle.result()).isError, false);
    assert.deepEqual(
      transfers()
        .map((e) => e.args)
        .filter((a) => (a as { to: string }).to === to),
      [args],
      'what ran is what was shown',
    );
  });

  const refusedBeforeAsking = async (args: Record<string, unknown>, field: RegExp) => {
    const ranBefore = transfers().length;
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: args });
    const watch = watchPending(handle);
    await assert.rejects(handle.result(), (err: unknown) => {
      assert.ok(err instanceof WorkflowFailedError, String(err));
      const cause = (err.cause as { cause?: unknown })?.cause ?? err.cause;
      assert.ok(cause instanceof ApplicationFailure, String(cause));
      assert.equal(cause.type, 'InvalidInput');
      assert.equal(cause.nonRetryable, true);
      assert.match(cause.message, field);
      assert.match(cause.message, /nobody was asked and the tool did not run/);
      return true;
    });
    assert.equal((await watch.stop()).size, 0, 'nobody was asked');
    assert.equal(transfers().length, ranBefore, 'the tool never ran');
  };

  it('a key the tool does not declare (a model adding "cc") is refused before anyone is asked, naming the key', async () => {
    await refusedBeforeAsking(
      { to: 'bob', amount: 5, cc: 'mallory@evil.example' },
      /field "cc" is not an argument of the tool .*it takes "to", "amount", "memo"/,
    );
  });

  it("a value the tool's schema refuses is refused before anyone is asked, naming the field", async () => {
    await refusedBeforeAsking({ to: 'bob', amount: 'five' }, /field "amount" must be number, got "five"/);
    await refusedBeforeAsking({ amount: 5 }, /field "to" is required by the tool, and missing/);
  });

  it('arguments too large to show in full are refused, naming the size and the limit', async () => {
    await refusedBeforeAsking(
      { to: 'x'.repeat(APPROVAL_ARGUMENTS_MAX), amount: 5 },
      new RegExp(`are ${APPROVAL_ARGUMENTS_MAX + 20} characters of JSON, over the ${APPROVAL_ARGUMENTS_MAX}`),
    );
  });
});
