import assert from 'node:assert/strict';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { mcpPipeline } from '../../src/workflows/index.js';
import type { PipelineStage } from '../../src/workflows/pipeline/index.js';
import { answerSignal, pendingDetailsQuery, pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { demoServerPath } from '../../src/cli/dev.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { continueAsNewInputs, isUnhandledCommandRetry, recordHistory, workflowTaskFailures } from '../helpers/history.js';
import { eventually, suiteEnvironment, testEnvironment } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

const examplesPath = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'workflows.js');

/** Wait (up to 30 s) until the workflow runs in a run other than `firstRunId`, and assert it does. */
async function continuedAsNew(handle: WorkflowHandle, firstRunId: string | undefined): Promise<void> {
  let described = await handle.describe();
  for (let i = 0; i < 300 && described.runId === firstRunId; i++) {
    await new Promise((r) => setTimeout(r, 100));
    described = await handle.describe();
  }
  assert.notEqual(described.runId, firstRunId, 'continued as new');
}

describe('pipelines: many tool calls, one inbox', () => {
  const suite = suiteEnvironment({ name: 'pipeline' });
  const { taskQueue, logPath } = suite;

  it('runs three steps; the middle one elicits and is answered through the pipeline id; the third uses the second result', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-3-${Date.now()}`,
      args: [
        {
          steps: [
            { name: 'warmup', server: 'fx', tool: 'echo', arguments: { text: 'start' } },
            { name: 'greet', server: 'fx', tool: 'ask_name' },
            { name: 'shout', server: 'fx', tool: 'echo', arguments: { text: '{{steps.greet.output}}!' } },
          ],
        },
      ],
    });
    await waitForPending(handle);
    const [details] = await handle.query(pendingDetailsQuery);
    const { askedAt, arguments: args, ...context } = details.context;
    assert.deepEqual(context, { callId: 'c2', server: 'fx', tool: 'ask_name', step: 'greet' });
    assert.ok(askedAt && Date.parse(askedAt) <= Date.now(), 'when it was asked');
    assert.equal(typeof args, 'string', "the step's arguments, as JSON");
    await handle.signal(answerSignal, { id: details.request.id, ok: true, data: { name: 'Ada' } });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-three-steps', suite.env.address);
    assert.equal(result.status, 'completed');
    assert.equal(result.steps.greet.result?.output, 'hello Ada');
    assert.equal(result.steps.shout.result?.output, 'echo: hello Ada!');
  });

  it('25 parallel tool calls that all elicit at once are all pending together, and all complete after their answers', async () => {
    const n = 25;
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-25-${Date.now()}`,
      args: [
        { steps: [{ parallel: Array.from({ length: n }, (_, i) => ({ name: `ask${i}`, server: 'fx', tool: 'ask_name', elicitation: { holdFor: 60_000 } })) }] },
      ],
    });
    const pending = await waitForPending(handle, n, 120_000);
    assert.equal(pending.length, n, 'all pending at the same time');
    assert.equal(new Set(pending.map((r) => r.id)).size, n);
    const details = await handle.query(pendingDetailsQuery);
    for (const d of details) {
      await handle.signal(answerSignal, { id: d.request.id, ok: true, data: { name: `person-${d.context.step}` } });
    }
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    for (let i = 0; i < n; i++) assert.equal(result.steps[`ask${i}`].result?.output, `hello person-ask${i}`);
    const history = await handle.fetchHistory();
    assert.ok(!history.events?.some((e) => e.workflowTaskFailedEventAttributes), 'no workflow task failure');
  });

  it('continues-as-new while a request is pending, still completes after the answer, and asks the human once', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-can-${Date.now()}`,
      args: [{ maxHistoryEvents: 12, steps: [{ name: 'order', server: 'fx', tool: 'counter', elicitation: { holdFor: 300 } }] }],
    });
    const firstRunId = (await handle.describe()).runId;
    const watch = watchPending(handle);
    const [request] = await waitForPending(handle);
    watch.seen.set(request.id, request);
    // Wait for the new run: the pending request was carried across.
    await continuedAsNew(handle, firstRunId);
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
      'same request pending in the new run',
    );
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { confirm: true } }] });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.ok(result.runs >= 2);
    assert.equal(result.steps.order.result?.output, 'confirmed');
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request.id], 'the human was asked once');
    const received = readFixtureLog(logPath).filter((e) => e.event === 'received' && e.tool === 'counter');
    assert.deepEqual(
      received.map((e) => e.result),
      [{ action: 'accept', content: { confirm: true } }],
    );
    await recordHistory(handle, 'pipeline-continue-as-new-run1', suite.env.address, firstRunId);
    await recordHistory(handle, 'pipeline-continue-as-new-run2', suite.env.address);
  });

  it('a late answer to an expired request is rejected while the pipeline runs on, and the other request stays answerable', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-late-${Date.now()}`,
      args: [
        {
          onFailure: 'continue',
          steps: [
            {
              parallel: [
                // 5 s: both must be seen pending first (a busy machine, or F5b's no-cache run polling every 500 ms).
                { name: 'quick', server: 'fx', tool: 'ask_name', elicitation: { expiresIn: 5000, holdFor: 200 } },
                { name: 'slow', server: 'fx', tool: 'ask_name', elicitation: { holdFor: 200 } },
              ],
            },
          ],
        },
      ],
    });
    const both = await waitForPending(handle, 2);
    const quick = (await handle.query(pendingDetailsQuery)).find((d) => d.context.step === 'quick')!.request;
    assert.ok(both.some((r) => r.id === quick.id));
    await eventually(async () => (await handle.query(pendingQuery)).length === 1, 'the quick request to expire', 60_000);
    await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [{ id: quick.id, ok: true, data: { name: 'Late' } }] }), (err: unknown) => {
      assert.ok(err instanceof WorkflowUpdateFailedError);
      assert.match(String((err as { cause?: Error }).cause?.message), /no longer pending: it was already expired/);
      return true;
    });
    const [slow] = await handle.query(pendingQuery);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: slow.id, ok: true, data: { name: 'Grace' } }] });
    const result = await handle.result();
    assert.equal(result.steps.quick.result?.output, 'cancelled');
    assert.equal(result.steps.slow.result?.output, 'hello Grace');
  });

  it('follows its failure policy: stop, continue, retry', async () => {
    const run = (onFailure: 'stop' | 'continue' | 'retry') =>
      suite.env.client.workflow.execute(mcpPipeline, {
        taskQueue,
        workflowId: `pipeline-fail-${onFailure}-${Date.now()}`,
        args: [
          {
            onFailure,
            steps: [
              { name: 'bad', server: 'fx', tool: 'fails', retries: 1 },
              { name: 'after', server: 'fx', tool: 'echo', arguments: { text: 'x' } },
            ],
          },
        ],
      });
    const stop = await run('stop');
    assert.equal(stop.status, 'stopped');
    assert.equal(stop.steps.bad.status, 'failed');
    assert.equal(stop.steps.bad.error, 'first part\nsecond part');
    assert.equal(stop.steps.after, undefined);
    const cont = await run('continue');
    assert.equal(cont.status, 'completed');
    assert.equal(cont.steps.after.result?.output, 'echo: x');
    const retry = await run('retry');
    assert.equal(retry.status, 'stopped');
    assert.equal(retry.steps.bad.attempts, 2);
  });

  it('a step that refers to a step that never ran fails, naming the reference, inline and as a child', async () => {
    for (const child of [false, true]) {
      const result = await suite.env.client.workflow.execute(mcpPipeline, {
        taskQueue,
        workflowId: `pipeline-badref-${child}-${Date.now()}`,
        args: [
          {
            steps: [
              { name: 'a', server: 'fx', tool: 'echo', child, arguments: { text: { $ref: 'steps.typo.output' } } },
              { name: 'b', server: 'fx', tool: 'echo' },
            ],
          },
        ],
      });
      assert.equal(result.status, 'stopped');
      assert.match(result.steps.a.error ?? '', /reference "steps\.typo\.output" names step "typo", which has not run before it/);
      assert.equal(result.steps.b, undefined);
    }
  });

  it('finishes in the same run when the state to carry across continue-as-new would not fit one payload', async () => {
    // a returns 500 KB that d refers to; b, c and d take 600 KB of arguments each (and return little).
    const pad = 'y'.repeat(600 * 1024);
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-big-${Date.now()}`,
      args: [
        {
          maxHistoryEvents: 8,
          steps: [
            { name: 'a', server: 'fx', tool: 'echo', arguments: { text: 'x', repeat: 500 * 1024 } },
            { name: 'b', server: 'fx', tool: 'structured', arguments: { pad } },
            { name: 'c', server: 'fx', tool: 'structured', arguments: { pad } },
            { name: 'd', server: 'fx', tool: 'structured', arguments: { pad, after: '{{steps.a.isError}}' } },
          ],
        },
      ],
    });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    // After a, the steps still to run (1.8 MB) and a's result (d refers to it) would not fit one payload.
    assert.equal(result.runs, 1, 'no continue-as-new with an input over the payload limit');
    assert.equal(result.steps.a.result?.output.length, 'echo: '.length + 500 * 1024);
    for (const name of ['b', 'c', 'd']) assert.equal(JSON.parse(result.steps[name].result?.output ?? '{}').answer, 42);
  });

  it('carries only what later steps use: an answered call leaves nothing in the host, finished steps nobody refers to are counted, not carried', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-bounded-${Date.now()}`,
      args: [
        {
          maxHistoryEvents: 8,
          steps: [
            { name: 'a', server: 'fx', tool: 'ask_name' },
            { name: 'b', server: 'fx', tool: 'echo', arguments: { text: 'B' } },
            { name: 'c', server: 'fx', tool: 'echo', arguments: { text: '{{steps.a.output}}' } },
          ],
        },
      ],
    });
    const [request] = await waitForPending(handle);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'A' } }] });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.runs, 3);
    assert.deepEqual(Object.keys(result.steps).sort(), ['a', 'c'], 'a is carried (c refers to it), b is not');
    assert.deepEqual(result.earlier, { completed: 1, failed: 0 });
    assert.equal(result.steps.c.result?.output, 'echo: hello A');
    // The continue-as-new inputs: the steps still to run, and nothing of the finished calls in the host.
    const carried = await continueAsNewInputs(handle);
    assert.equal(carried.length, 2);
    assert.deepEqual(
      carried.map((c) => c.input.steps.map((s: { name: string }) => s.name)),
      [['b', 'c'], ['c']],
    );
    assert.deepEqual(
      carried.map((c) => Object.keys(c.input.state.outcomes)),
      [['a'], ['a']],
    );
    // After the answered call finished, the host holds nothing of it: no call record, answer or request (only
    // how its request ended, among the last few, to explain a late answer).
    for (const c of carried) {
      assert.deepEqual(c.input.state.host.calls, [], 'no finished call is carried');
      assert.deepEqual(c.input.state.host.resolved, [], 'no recorded answer of a finished call');
      assert.deepEqual(c.input.state.host.pending, []);
      assert.deepEqual(c.input.state.host.finished, [{ id: request.id, how: 'accepted' }]);
    }
  });

  it('rejects a bad pipeline naming the field', async () => {
    await assert.rejects(
      suite.env.client.workflow.execute(mcpPipeline, {
        taskQueue,
        workflowId: `pipeline-bad-${Date.now()}`,
        args: [
          {
            steps: [
              { name: 'a', server: 'fx', tool: 'echo' },
              { name: 'a', server: 'fx', tool: 'echo' },
            ],
          },
        ],
      }),
      (err: Error) => /step name "a" is used twice/.test(String((err as { cause?: Error }).cause?.message)),
    );
    await assert.rejects(
      suite.env.client.workflow.execute(mcpPipeline, {
        taskQueue,
        workflowId: `pipeline-bad2-${Date.now()}`,
        args: [{ steps: [{ name: 'a', server: 'fx', tool: 'ask_name', elicitation: { expiresIn: -1 } }] }],
      }),
      (err: Error) =>
        /step "a": field "elicitation.expiresIn" must be a Temporal Duration: a number of milliseconds or a string like "4s".*, got -1/.test(
          String((err as { cause?: Error }).cause?.message),
        ),
    );
    await assert.rejects(
      suite.env.client.workflow.execute(mcpPipeline, {
        taskQueue,
        workflowId: `pipeline-bad3-${Date.now()}`,
        args: [{ steps: [{ name: 'a', server: 'fx', tool: 'echo', maxAttempts: 0 }] }],
      }),
      (err: Error) => /step "a": field "maxAttempts" must be a whole number from 1 to 100, got 0/.test(String((err as { cause?: Error }).cause?.message)),
    );
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ onFailure: 'retry', retries: 'x' }, /step "a": field "retries" must be a whole number from 0 to 100, got "x"/],
      [{ onFailure: 'retry', retries: 2.5 }, /step "a": field "retries" must be a whole number from 0 to 100, got 2.5/],
      [{ toolTimeout: -5 }, /step "a": field "toolTimeout" must be a Temporal Duration: .*above 0 up to \d+ ms.*, got -5/],
      [{ heartbeatTimeout: '30 parsecs' }, /step "a": field "heartbeatTimeout" must be a Temporal Duration: .*, got "30 parsecs"/],
      [{ arguments: ['x'] }, /step "a": field "arguments" must be an object, got \["x"\]/],
      [{ maxRounds: 0 }, /step "a": field "maxRounds" must be a whole number from 1 to 100, got 0/],
    ];
    for (const [extra, message] of cases) {
      await assert.rejects(
        suite.env.client.workflow.execute(mcpPipeline, {
          taskQueue,
          workflowId: `pipeline-bad-${Math.random().toString(36).slice(2)}`,
          args: [{ steps: [{ name: 'a', server: 'fx', tool: 'echo', ...extra } as never] }],
        }),
        (err: Error) => message.test(String((err as { cause?: Error }).cause?.message)),
        `${JSON.stringify(extra)} is refused`,
      );
    }
  });
});

describe('the example user workflow', () => {
  it('calls MCP tools from its own workflow code, with durable elicitation answered through its own id', async () => {
    await using t = await testEnvironment({
      name: 'example',
      workflowsPath: examplesPath,
      mcpConfig: { mcpServers: { demo: { command: [process.execPath, demoServerPath] } } },
    });
    const { env, taskQueue } = t;
    const handle = await env.client.workflow.start('planDinner', {
      taskQueue,
      workflowId: `example-${Date.now()}`,
      args: [{ restaurant: 'Chez Example', guests: 3 }],
    });
    const [request] = await waitForPending(handle);
    assert.match(request.prompt, /Chez Example/);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada', guests: 3, date: '2026-12-24' } }] });
    assert.equal(await handle.result(), 'Booked Chez Example for 3 on 2026-12-24 under "Ada" (inside). Seats needed with the host: 4.');
  });
});

describe('pipeline steps as child workflows', () => {
  const suite = suiteEnvironment({ name: 'pipeline-child' });
  const { taskQueue } = suite;
  /** A pipeline whose first step runs ask_name inline and as a child at once (then `after`), once both requests are pending. */
  async function inlineAndChild(name: string, after: PipelineStage[] = []) {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `${name}-${Date.now()}`,
      args: [
        {
          steps: [
            {
              parallel: [
                { name: 'inline', server: 'fx', tool: 'ask_name' },
                { name: 'child', server: 'fx', tool: 'ask_name', child: true },
              ],
            },
            ...after,
          ],
        },
      ],
    });
    await waitForPending(handle, 2);
    return handle;
  }

  it('lists the requests of inline and child steps on the pipeline id, and routes answers there to either', async () => {
    const handle = await inlineAndChild('pipeline-mixed', [
      { name: 'after', server: 'fx', tool: 'echo', arguments: { text: '{{steps.child.output}} + {{steps.inline.output}}' } },
    ]);
    const details = await handle.query(pendingDetailsQuery);
    const byStep = Object.fromEntries(details.map((d) => [d.context.step, d]));
    assert.deepEqual(Object.keys(byStep).sort(), ['child', 'inline']);
    assert.equal(byStep.child.context.tool, 'ask_name');
    // The child request is answered through the pipeline (update: validated there, then forwarded).
    const causeMatches = (re: RegExp) => (err: unknown) => re.test(String((err as { cause?: Error }).cause?.message));
    await assert.rejects(
      handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byStep.child.request.id, ok: true, data: { nom: 'x' } }] }),
      causeMatches(/field "nom"/),
    );
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byStep.child.request.id, ok: true, data: { name: 'Kid' } }] });
    await assert.rejects(
      handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byStep.child.request.id, ok: true, data: { name: 'Again' } }] }),
      causeMatches(/no longer pending/),
    );
    await handle.signal(answerSignal, { id: byStep.inline.request.id, ok: true, data: { name: 'Parent' } });
    const result = await handle.result();
    assert.equal(result.steps.child.result?.output, 'hello Kid');
    assert.equal(result.steps.after.result?.output, 'echo: hello Kid + hello Parent');
    await recordHistory(handle, 'pipeline-child-and-inline', suite.env.address);
    assert.deepEqual(await handle.query(pendingQuery), []);
  });

  it(
    "an answer link's answer (bound to the pipeline's run) reaches a child step's tool: the child does not refuse the pipeline's run",
    { timeout: 90_000 },
    async () => {
      const handle = await inlineAndChild('pipeline-child-link');
      const details = await handle.query(pendingDetailsQuery);
      const byStep = Object.fromEntries(details.map((d) => [d.context.step, d]));
      const run = (await handle.describe()).runId;
      const sender = { by: 'ana@example.com', source: 'link' as const, link: { run } };
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byStep.child.request.id, ok: true, data: { name: 'Linked' } }, sender] });
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byStep.inline.request.id, ok: true, data: { name: 'Inline' } }, sender] });
      const result = await handle.result();
      assert.equal(result.steps.child.result?.output, 'hello Linked', "the child step's tool got the answer");
      assert.equal(result.steps.inline.result?.output, 'hello Inline');
    },
  );

  it('cancelling a pipeline with pending inline and child requests ends it and its child as cancelled, nothing left pending', async () => {
    const handle = await inlineAndChild('pipeline-cancel');
    const childId = (await handle.query(pendingDetailsQuery)).find((d) => d.context.step === 'child')!.context;
    assert.ok(childId);
    await handle.cancel();
    await assert.rejects(handle.result(), (err: unknown) => /CancelledFailure/.test(String((err as any).cause?.name)));
    const { events } = await handle.fetchHistory();
    assert.deepEqual(
      (await workflowTaskFailures(handle)).filter((f) => !isUnhandledCommandRetry(f)),
      [],
      'no workflow task of the pipeline failed',
    );
    const started = events!.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)!.startChildWorkflowExecutionInitiatedEventAttributes!
      .workflowId!;
    const child = suite.env.client.workflow.getHandle(started);
    await assert.rejects(child.result(), (err: unknown) => /CancelledFailure/.test(String((err as any).cause?.name)));
    assert.deepEqual(
      (await workflowTaskFailures(child)).filter((f) => !isUnhandledCommandRetry(f)),
      [],
      'no workflow task of the child failed',
    );
    assert.deepEqual(await handle.query(pendingQuery), []);
    assert.deepEqual(await child.query(pendingQuery), []);
  });

  it('a child step pending across a continue-as-new of the pipeline is still answered through the pipeline id', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `pipeline-child-can-${Date.now()}`,
      args: [{ maxHistoryEvents: 8, childWorkflows: true, steps: [{ name: 'confirm', server: 'fx', tool: 'counter' }] }],
    });
    const firstRunId = (await handle.describe()).runId;
    const [request] = await waitForPending(handle);
    await continuedAsNew(handle, firstRunId);
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
    );
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { confirm: true } });
    const result = await handle.result();
    assert.equal(result.steps.confirm.result?.output, 'confirmed');
    assert.ok(result.runs >= 2);
  });
});
