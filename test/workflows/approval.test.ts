/**
 * Approvals (docs/approvals.md) end to end: a real worker, real MCP servers (the v1 SDK fixture, whose `transfer` has no
 * annotations and `balance` says readOnlyHint; the v2 SDK modern fixture, whose `delete_note` and `read_note` carry
 * annotations), each run of a tool logged with its arguments, so the tests count what ran.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ToolResult } from '../../src/contract/index.js';
import { mcpPipeline, mcpToolCall, type McpToolCallInput } from '../../src/workflows/index.js';
import { pendingDetailsQuery, pendingQuery, submitAnswerUpdate, answerSignal, waitForPendingUpdate } from '../../src/workflows/messages.js';
import { TOOL_CALL_MAX_UPDATES } from '../../src/workflows/mcp-tool-call.js';
import { livePids, spawnNode } from '../../scripts/processes.js';
import { fixtureServerPath, modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { continueAsNewInputs, recordHistory } from '../helpers/history.js';
import { suiteEnvironment, tempDir, testEnvironment, uniqueTaskQueue } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';
import { accept, answerWith, nextPending } from '../../src/testing/index.js';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

/** The MCP config of these tests: a worker-wide "destructive" default, servers that trust annotations, one that never asks. */
function approvalConfig(dir: string, extra: Record<string, unknown> = {}) {
  const logs = {
    v1: join(dir, 'v1.jsonl'),
    v1trust: join(dir, 'v1trust.jsonl'),
    open: join(dir, 'open.jsonl'),
    v2: join(dir, 'v2.jsonl'),
    v2trust: join(dir, 'v2trust.jsonl'),
  };
  const v1 = (log: string, more: Record<string, unknown> = {}) => ({ command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: log }, ...more });
  const v2 = (log: string, more: Record<string, unknown> = {}) => ({ command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: log }, ...more });
  const config = {
    approval: 'destructive',
    mcpServers: {
      fx: v1(logs.v1),
      fxtrust: v1(logs.v1trust, { approval: { annotations: 'trust' } }),
      open: v1(logs.open, { approval: 'never' }),
      modern: v2(logs.v2),
      moderntrust: v2(logs.v2trust, { approval: { annotations: 'trust' } }),
    },
    ...extra,
  };
  return { config, logs };
}

/** The runs of `tool` a fixture server logged, with their arguments (v1: `side_effect` events; v2: `run` events). */
function runs(logPath: string, tool: string): Array<Record<string, unknown>> {
  return readFixtureLog(logPath)
    .filter((e) => (e.event === 'side_effect' || e.event === 'run') && e.tool === tool)
    .map((e) => e.args as Record<string, unknown>);
}

describe('approvals: a person approves a tool before it runs', () => {
  const dir = tempDir();
  const { config, logs } = approvalConfig(dir);
  const suite = suiteEnvironment({ name: 'approval', mcpConfig: config });
  let n = 0;
  const start = (input: McpToolCallInput) =>
    suite.client.workflow.start(mcpToolCall, { taskQueue: suite.taskQueue, workflowId: `approval-${++n}-${Date.now()}`, args: [input] });
  const submit = (handle: WorkflowHandle, answer: Record<string, unknown>, by: string) =>
    handle.executeUpdate(submitAnswerUpdate, { args: [answer as never, { by }] });

  it('a gated tool waits with 0 runs; approved as proposed it runs once with those arguments, and the result says who approved', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'bob', amount: 5 } });
    const [request] = await waitForPending(handle);
    assert.equal(request.kind, 'input');
    assert.match(request.prompt, /server "fx".*tool "Transfer money" \(transfer\)/);
    const schema = (request.data as { schema: { properties: Record<string, { default?: unknown }> } }).schema;
    assert.equal(schema.properties.to.default, 'bob', 'the form is prefilled with the proposed arguments');
    assert.equal(schema.properties.amount.default, 5);
    const [details] = await handle.query(pendingDetailsQuery);
    assert.equal(details.context.approval?.editable, true);
    assert.equal(details.context.approval?.title, 'Transfer money');
    assert.equal(details.context.arguments, '{"to":"bob","amount":5}');
    assert.deepEqual(runs(logs.v1, 'transfer'), [], 'nothing ran while the approval waits');

    await submit(handle, { id: request.id, ok: true }, 'alice');
    const result = await handle.result();
    assert.equal(result.output, 'sent 5 to bob');
    assert.equal(result.isError, false);
    assert.equal(result.metadata?.approval, 'approved');
    assert.equal(result.metadata?.answeredBy, 'alice');
    assert.equal(result.metadata?.approvalId, request.id);
    assert.ok(Date.parse(String(result.metadata?.answeredAt)) <= Date.now());
    assert.deepEqual(result.metadata?.approvedArguments, { to: 'bob', amount: 5 });
    assert.deepEqual(runs(logs.v1, 'transfer'), [{ to: 'bob', amount: 5 }], 'one run, with the proposed arguments');
    await recordHistory(handle, 'approval-approved', suite.env.address);
  });

  it('declined: the tool never runs, and the caller gets an isError result that says so (approval "declined", who)', async () => {
    const before = runs(logs.v1, 'transfer').length;
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'mallory', amount: 900 } });
    const [request] = await waitForPending(handle);
    await submit(handle, { id: request.id, ok: false, reason: 'declined' }, 'carol');
    const result: ToolResult = await handle.result();
    assert.equal(result.isError, true);
    assert.match(result.output, /did not run: a person \(carol\) declined/);
    assert.equal(result.metadata?.approval, 'declined');
    assert.equal(result.metadata?.answeredBy, 'carol');
    assert.equal(runs(logs.v1, 'transfer').length, before, 'no run');
  });

  it('an edited argument reaches the server; an invalid edit is refused and the request stays pending', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'dave', amount: 50 } });
    const [request] = await waitForPending(handle);
    await assert.rejects(submit(handle, { id: request.id, ok: true, data: { to: 'dave', amount: 5000 } }, 'erin'), (err: unknown) => {
      assert.ok(err instanceof WorkflowUpdateFailedError);
      assert.match(String((err.cause as Error).message), /amount/);
      return true;
    });
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
      'still pending after the invalid edit',
    );
    await submit(handle, { id: request.id, ok: true, data: { to: 'dave', amount: 7 } }, 'erin');
    const result = await handle.result();
    assert.equal(result.output, 'sent 7 to dave');
    assert.deepEqual(result.metadata?.approvedArguments, { to: 'dave', amount: 7 });
    assert.deepEqual(
      runs(logs.v1, 'transfer').filter((a) => a.to === 'dave'),
      [{ to: 'dave', amount: 7 }],
      'the edited amount ran, once',
    );
  });

  it('annotations: readOnlyHint from an untrusted server is still gated, from a trusted one it is not (v1 and v2 SDK servers)', async () => {
    // Trusted: read-only tools run at once; a destructive one is still gated.
    assert.equal((await (await start({ server: 'fxtrust', tool: 'balance', arguments: {} })).result()).output, 'balance 42');
    assert.equal((await (await start({ server: 'moderntrust', tool: 'read_note', arguments: { id: 'n1' } })).result()).output, 'note n1');
    assert.equal(runs(logs.v2trust, 'read_note').length, 1);
    const destructive = await start({ server: 'moderntrust', tool: 'delete_note', arguments: { id: 'n2' } });
    const [asked] = await waitForPending(destructive);
    assert.deepEqual(runs(logs.v2trust, 'delete_note'), []);
    await destructive.signal(answerSignal, { id: asked.id, ok: true }, { by: 'frank' });
    assert.equal((await destructive.result()).output, 'deleted n2');
    assert.deepEqual(runs(logs.v2trust, 'delete_note'), [{ id: 'n2' }]);

    // Untrusted (the worker-wide "destructive" default ignores annotations): the same read-only tools are gated.
    for (const [server, tool, args, log] of [
      ['fx', 'balance', { account: 'a' }, logs.v1],
      ['modern', 'read_note', { id: 'n3' }, logs.v2],
    ] as const) {
      const handle = await start({ server, tool, arguments: args });
      const [request] = await waitForPending(handle);
      const [details] = await handle.query(pendingDetailsQuery);
      assert.equal(details.context.approval?.annotations?.readOnlyHint, true, 'the annotation is shown');
      assert.equal(details.context.approval?.annotationsTrusted, false, 'but not trusted');
      assert.deepEqual(runs(log, tool), []);
      await submit(handle, { id: request.id, ok: true }, 'gina');
      await handle.result();
      assert.deepEqual(runs(log, tool), [args]);
    }
  });

  it('a call asking for "always" is gated under a "never" policy; the same call without it is not', async () => {
    assert.equal((await (await start({ server: 'open', tool: 'transfer', arguments: { to: 'x', amount: 1 } })).result()).output, 'sent 1 to x');
    const handle = await start({ server: 'open', tool: 'transfer', arguments: { to: 'y', amount: 2 }, approval: 'always' });
    const [request] = await waitForPending(handle);
    assert.deepEqual(
      runs(logs.open, 'transfer').map((a) => a.to),
      ['x'],
    );
    await submit(handle, { id: request.id, ok: true }, 'hank');
    assert.equal((await handle.result()).output, 'sent 2 to y');
    // A call cannot ask for less: "never" is not a value a call may give.
    await assert.rejects(
      (await start({ server: 'fx', tool: 'transfer', arguments: { to: 'z', amount: 1 }, approval: 'never' as never })).result(),
      (err: Error) => /field "approval" must be "always"/.test(String((err.cause as Error)?.message)),
    );
  });

  it('a continue-as-new while the approval waits asks nothing again; approved, the tool runs once', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'ivan', amount: 3 } });
    const [request] = await waitForPending(handle);
    for (let i = 0; i < TOOL_CALL_MAX_UPDATES + 1; i++) await handle.executeUpdate(waitForPendingUpdate, { args: [{ seen: [] }] });
    const carried = await continueAsNewInputs(handle);
    assert.ok(carried.length >= 1, `continued as new (${carried.length})`);
    const watch = watchPending(handle);
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
      'the same approval, still pending',
    );
    await submit(handle, { id: request.id, ok: true }, 'judy');
    assert.equal((await handle.result()).output, 'sent 3 to ivan');
    const seen = await watch.stop();
    assert.ok(
      [...seen.keys()].every((id) => id === request.id),
      'never asked again',
    );
    assert.deepEqual(
      runs(logs.v1, 'transfer').filter((a) => a.to === 'ivan'),
      [{ to: 'ivan', amount: 3 }],
    );
  });

  it("the testing kit answers approvals: nextPending shows the approval's context, answerWith approves an edit", async () => {
    const handle = await start({ server: 'modern', tool: 'delete_note', arguments: { id: 'n9', note: 'old' } });
    const next = await nextPending(handle);
    assert.equal(next.context?.approval?.annotations?.destructiveHint, true);
    const answerer = answerWith(handle, (_request, context) => (context?.approval ? accept({ id: 'n9', note: 'kept' }) : undefined));
    assert.equal((await handle.result()).output, 'deleted n9');
    await answerer.done;
    assert.equal(answerer.answered.length, 1);
    assert.deepEqual(
      runs(logs.v2, 'delete_note').filter((a) => a.id === 'n9'),
      [{ id: 'n9', note: 'kept' }],
    );
  });

  it("a pipeline step is gated and approved from the pipeline's inbox", async () => {
    const handle = await suite.client.workflow.start(mcpPipeline, {
      taskQueue: suite.taskQueue,
      workflowId: `approval-pipeline-${Date.now()}`,
      args: [
        {
          steps: [
            { name: 'pay', server: 'fx', tool: 'transfer', arguments: { to: 'kim', amount: 11 } },
            { name: 'check', server: 'open', tool: 'balance', arguments: {} },
          ],
        },
      ],
    });
    const [request] = await waitForPending(handle);
    const [details] = await handle.query(pendingDetailsQuery);
    assert.equal(details.context.step, 'pay');
    assert.deepEqual(
      runs(logs.v1, 'transfer').filter((a) => a.to === 'kim'),
      [],
    );
    await submit(handle, { id: request.id, ok: true }, 'leo');
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.steps.pay.result?.output, 'sent 11 to kim');
    assert.equal(result.steps.pay.result?.metadata?.answeredBy, 'leo');
    assert.equal(result.steps.check.result?.output, 'balance 42');
  });

  it('a pipeline step asking for "always" on a server whose policy is "never" waits with 0 runs, and runs once when approved', async () => {
    const handle = await suite.client.workflow.start(mcpPipeline, {
      taskQueue: suite.taskQueue,
      workflowId: `approval-pipeline-ask-${Date.now()}`,
      args: [{ steps: [{ name: 'pay', server: 'open', tool: 'transfer', arguments: { to: 'pia', amount: 12 }, approval: 'always' }] }],
    });
    const [request] = await waitForPending(handle);
    const [details] = await handle.query(pendingDetailsQuery);
    assert.equal(details.context.step, 'pay');
    assert.ok(details.context.approval, 'the request is an approval');
    assert.deepEqual(
      runs(logs.open, 'transfer').filter((a) => a.to === 'pia'),
      [],
      '0 runs while it waits',
    );
    await submit(handle, { id: request.id, ok: true }, 'quinn');
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.steps.pay.result?.output, 'sent 12 to pia');
    assert.equal(result.steps.pay.result?.metadata?.approval, 'approved');
    assert.deepEqual(
      runs(logs.open, 'transfer').filter((a) => a.to === 'pia'),
      [{ to: 'pia', amount: 12 }],
      '1 run',
    );
  });

  for (const onFailure of ['stop', 'continue'] as const) {
    it(`a declined gated pipeline step with onFailure "${onFailure}" ${onFailure === 'stop' ? 'stops the pipeline: later steps never run' : 'goes on: later steps run'}`, async () => {
      const account = `after-${onFailure}-${Date.now()}`;
      const handle = await suite.client.workflow.start(mcpPipeline, {
        taskQueue: suite.taskQueue,
        workflowId: `approval-pipeline-${onFailure}-${Date.now()}`,
        args: [
          {
            steps: [
              { name: 'pay', server: 'fx', tool: 'transfer', arguments: { to: account, amount: 13 }, onFailure },
              { name: 'check', server: 'open', tool: 'balance', arguments: { account } },
            ],
          },
        ],
      });
      const [request] = await waitForPending(handle);
      await submit(handle, { id: request.id, ok: false, reason: 'declined' }, 'rosa');
      const result = await handle.result();
      // The pipeline's caller tells a step that was not approved from the tool's own error by metadata.approval.
      assert.equal(result.steps.pay.status, 'failed');
      assert.equal(result.steps.pay.result?.isError, true);
      assert.equal(result.steps.pay.result?.metadata?.approval, 'declined');
      assert.equal(result.steps.pay.result?.metadata?.answeredBy, 'rosa');
      assert.match(String(result.steps.pay.error), /did not run: a person \(rosa\) declined/);
      assert.deepEqual(
        runs(logs.v1, 'transfer').filter((a) => a.to === account),
        [],
        'the declined tool never ran',
      );
      const later = runs(logs.open, 'balance').filter((a) => a.account === account);
      if (onFailure === 'stop') {
        assert.equal(result.status, 'stopped');
        assert.equal(result.steps.check, undefined);
        assert.deepEqual(later, [], 'the later step never ran');
      } else {
        assert.equal(result.status, 'completed');
        assert.equal(result.steps.check.status, 'completed');
        assert.equal(result.steps.check.result?.output, 'balance 42');
        assert.deepEqual(later, [{ account }], 'the later step ran once');
      }
    });
  }

  it('an answer {ok:false} without a reason cancels the approval: metadata.approval "cancelled", 0 runs', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'sam', amount: 14 } });
    const [request] = await waitForPending(handle);
    await submit(handle, { id: request.id, ok: false }, 'tess');
    const result = await handle.result();
    assert.equal(result.isError, true);
    assert.equal(result.metadata?.approval, 'cancelled');
    assert.match(result.output, /did not run: its approval was cancelled/);
    assert.deepEqual(
      runs(logs.v1, 'transfer').filter((a) => a.to === 'sam'),
      [],
      '0 runs',
    );
  });

  it('cancelling the workflow while its approval waits withdraws the request, and the tool never runs', async () => {
    const handle = await start({ server: 'fx', tool: 'transfer', arguments: { to: 'uma', amount: 15 } });
    const [request] = await waitForPending(handle);
    await handle.cancel();
    await assert.rejects(handle.result(), (err: unknown) => {
      assert.match(String((err as { cause?: { name?: string } }).cause?.name), /CancelledFailure/);
      return true;
    });
    assert.deepEqual(await handle.query(pendingQuery), [], 'the approval is withdrawn: nobody is asked any more');
    await assert.rejects(submit(handle, { id: request.id, ok: true }, 'vera'), /completed|not found/i, 'an approval after the cancel is refused');
    assert.deepEqual(
      runs(logs.v1, 'transfer').filter((a) => a.to === 'uma'),
      [],
      'the tool never ran',
    );
    const { events } = await handle.fetchHistory();
    assert.equal(events!.filter((e) => e.activityTaskScheduledEventAttributes).length, 1, 'no activity after the one that asked for the approval');
  });
});

describe('approvals: expiry and a killed worker', () => {
  it('an approval nobody answers expires (time-skipping): the tool never runs, the result says approval "expired"', async () => {
    const dir = tempDir();
    const { config, logs } = approvalConfig(dir, { approval: { expiresIn: '2h' } });
    await using t = await testEnvironment({ timeSkipping: true, name: 'approval-expiry', mcpConfig: config });
    const handle = await t.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `approval-expiry-${Date.now()}`,
      args: [{ server: 'fx', tool: 'transfer', arguments: { to: 'bob', amount: 5 } }],
    });
    const [request] = await waitForPending(handle);
    const startedAt = await t.env.currentTimeMs();
    assert.ok(Math.abs(Date.parse(request.expiresAt!) - (startedAt + 2 * 3600_000)) < 60_000, "the policy's expiresIn");
    const result = await handle.result();
    assert.equal(result.isError, true);
    assert.equal(result.metadata?.approval, 'expired');
    assert.match(result.output, /nobody approved it in time/);
    assert.deepEqual(runs(logs.v1, 'transfer'), []);
  });

  it('the worker is SIGKILLed while the approval waits, the answer is sent with no worker, a new worker runs the tool once', async () => {
    const suite = await testEnvironment({ name: 'approval-kill' });
    try {
      const dir = tempDir();
      const { config, logs } = approvalConfig(dir);
      const configPath = join(dir, 'mcp.json');
      writeFileSync(configPath, JSON.stringify(config));
      const taskQueue = uniqueTaskQueue('approval-kill');
      const workerEnv = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_TASK_QUEUE: taskQueue };
      const first = spawnNode([workerEntry, '--mcp-config', configPath], workerEnv);
      await first.waitFor(/durable-mcp worker: Temporal/);
      const handle = await suite.client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: `approval-kill-${Date.now()}`,
        args: [{ server: 'fx', tool: 'transfer', arguments: { to: 'max', amount: 9 }, heartbeatTimeout: 2000 }],
      });
      const watch = watchPending(handle);
      const [request] = await waitForPending(handle);
      watch.seen.set(request.id, request); // the watch polls: it may miss the request before the answer
      await first.kill('SIGKILL');
      await handle.signal(answerSignal, { id: request.id, ok: true }, { by: 'nina' });
      const second = spawnNode([workerEntry, '--mcp-config', configPath], workerEnv);
      try {
        const result = await handle.result();
        assert.equal(result.output, 'sent 9 to max');
        assert.equal(result.metadata?.answeredBy, 'nina');
      } finally {
        await second.kill('SIGTERM');
      }
      await second.exited;
      const seen = await watch.stop();
      assert.deepEqual([...seen.keys()], [request.id], 'asked once');
      assert.deepEqual(runs(logs.v1, 'transfer'), [{ to: 'max', amount: 9 }], 'one run');
      const ours = new Set(readFixtureLog(logs.v1).map((e) => e.pid));
      assert.deepEqual(
        livePids(fixtureServerPath).filter((p) => ours.has(p)),
        [],
        'no orphaned MCP server',
      );
    } finally {
      await suite.teardown();
    }
  });
});
