import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, it } from 'node:test';
import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery, submitAnswerUpdate, waitForPendingUpdate, type WaitForPendingInput } from '../../src/workflows/messages.js';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';
import { noCacheMode, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';
import { isUnhandledCommandRetry, recordHistory, timersOf, workflowTaskFailures } from '../helpers/history.js';

/** The workflow's timers, once asserted to have ended as `ended` says (in order). */
async function timersEndedAs(handle: WorkflowHandle, ended: string[]): Promise<Awaited<ReturnType<typeof timersOf>>> {
  const timers = await timersOf(handle);
  assert.deepEqual(
    timers.map((t) => t.ended),
    ended,
    JSON.stringify(timers),
  );
  return timers;
}

describe('durable elicitation on the dev server', () => {
  const suite = suiteEnvironment({
    name: 'elicit',
    extraServers: {
      missing: { command: ['/nonexistent/durable-mcp-server'] },
      crashy: { command: [process.execPath, fixtureServerPath, '--crash-on-start'] },
      needsvar: { command: [process.execPath, fixtureServerPath], env: { TOKEN: '${DURABLE_MCP_TEST_UNSET_TOKEN}' } },
    },
  });
  const { taskQueue, logPath } = suite;

  const start = (tool: string, args: Record<string, unknown> = {}, elicitation?: { expiresIn?: number; holdFor?: number }) =>
    suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'fx', tool, arguments: args, elicitation }],
    });

  it('shows the exact Request in pending while it waits, and an accept signal reaches the server as accept', async () => {
    const handle = await start('ask_name');
    const [request] = await waitForPending(handle);
    assert.equal(request.kind, 'input');
    assert.equal(request.prompt, 'What is your name?');
    assert.deepEqual(Object.keys(request).sort(), ['data', 'expiresAt', 'id', 'kind', 'prompt']);
    assert.equal((request.data as any).schema.type, 'object');
    assert.ok(!Number.isNaN(Date.parse(request.expiresAt!)), 'expiresAt is RFC 3339');

    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
    assert.deepEqual(await handle.result(), { output: 'hello Ada', isError: false });
    await recordHistory(handle, 'accept', suite.env.address);
    assert.deepEqual(await handle.query(pendingQuery), []);
    const received = readFixtureLog(logPath).filter((e) => e.event === 'received' && e.tool === 'ask_name');
    assert.ok(received.some((e) => JSON.stringify(e.result) === JSON.stringify({ action: 'accept', content: { name: 'Ada' } })));
  });

  /** The result of an `ask_name` call whose request got `answer` by the answer signal. */
  const answeredWith = async (answer: { ok: false; reason?: string }) => {
    const handle = await start('ask_name');
    const [request] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: request.id, ...answer } as any);
    return handle.result();
  };

  it('a declined answer reaches the server as decline', async () => {
    assert.deepEqual(await answeredWith({ ok: false, reason: 'declined' }), { output: 'declined', isError: false });
  });

  it('a cancelled answer (or one with no reason) reaches the server as cancel', async () => {
    for (const answer of [{ ok: false, reason: 'cancelled' }, { ok: false }] as const) {
      assert.deepEqual(await answeredWith(answer), { output: 'cancelled', isError: false });
    }
  });

  it('submitAnswer accepts a valid answer and tells what the server will see', async () => {
    const handle = await start('ask_name');
    const [request] = await waitForPending(handle);
    const res = await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Grace' } }] });
    assert.deepEqual(res, { id: request.id, action: 'accept' });
    assert.equal((await handle.result()).output, 'hello Grace');
  });

  it('a URL-mode elicitation is an authorization request with the link and no data', async () => {
    const handle = await start('ask_url');
    const [request] = await waitForPending(handle);
    assert.equal(request.kind, 'authorization');
    assert.equal(request.prompt, 'Please sign in');
    assert.match(request.url!, /^https:\/\/example\.test\/auth\?session=/);
    assert.equal(request.data, undefined);
    await handle.signal(answerSignal, { id: request.id, ok: true });
    assert.deepEqual(JSON.parse((await handle.result()).output), { action: 'accept' });
  });

  it('two elicitations in one tool call are both durable and answered in order', async () => {
    const handle = await start('ask_twice');
    const [first] = await waitForPending(handle);
    assert.equal(first.prompt, 'First name?');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { first: 'Ada' } }] });
    const second = await (async () => {
      for (;;) {
        const p = await handle.query(pendingQuery);
        if (p.length === 1 && p[0].id !== first.id) return p[0];
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    assert.equal(second.prompt, 'Last name?');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: second.id, ok: true, data: { last: 'Lovelace' } }] });
    assert.equal((await handle.result()).output, 'Ada Lovelace');
    await recordHistory(handle, 'two-elicitations', suite.env.address);
  });

  it('releases the call after holdFor: no activity runs while the human thinks, and the answer completes it without asking again', async (t) => {
    const handle = await start('counter', {}, { holdFor: 500 });
    const watch = watchPending(handle);
    t.after(() => watch.end());
    const [request] = await waitForPending(handle);
    watch.seen.set(request.id, request);
    // Wait until the activity is gone: released, nothing held.
    for (;;) {
      const d = await handle.describe();
      if ((d.raw.pendingActivities ?? []).length === 0 && (await handle.query(pendingQuery)).length === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await handle.describe()).raw.pendingActivities?.length ?? 0, 0, 'no activity held while waiting');
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { confirm: true } });
    assert.equal((await handle.result()).output, 'confirmed');
    await recordHistory(handle, 'release-hold-for', suite.env.address);
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request.id], 'the human was asked once');
    const effects = readFixtureLog(logPath).filter((e) => e.event === 'side_effect' && e.phase === 'after');
    assert.ok(effects.length >= 1);
  });

  it('a call waiting inline runs one timer for its request; the expiry timer starts only if the call is released', async () => {
    const expiresIn = 60 * 60 * 1000;
    const holdFor = 10 * 60 * 1000;
    // Answered while the call waits inline: one timer (holdFor, the earlier deadline), cancelled by the answer.
    const inline = await start('ask_name', {}, { expiresIn, holdFor });
    const [asked] = await waitForPending(inline);
    await inline.executeUpdate(submitAnswerUpdate, { args: [{ id: asked.id, ok: true, data: { name: 'Ada' } }] });
    assert.deepEqual(await inline.result(), { output: 'hello Ada', isError: false });
    assert.deepEqual(await timersOf(inline), [{ ms: holdFor, ended: 'canceled' }]);

    // Released after holdFor: that timer fires, then the request's expiry timer runs (for what is left of
    // expiresIn) until the answer comes.
    const released = await start('ask_name', {}, { expiresIn, holdFor: 300 });
    const [request] = await waitForPending(released);
    while (((await released.describe()).raw.pendingActivities ?? []).length > 0) await new Promise((r) => setTimeout(r, 100));
    await released.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Bob' } });
    assert.deepEqual(await released.result(), { output: 'hello Bob', isError: false });
    const timers = await timersEndedAs(released, ['fired', 'canceled']);
    assert.equal(timers[0].ms, 300);
    assert.ok(timers[1].ms <= expiresIn && timers[1].ms > expiresIn - 60_000, `the expiry timer waits for the rest of expiresIn, got ${timers[1].ms} ms`);
  });

  it('a request whose call waits inline expires into cancel at expiresIn, with one timer and without releasing the call', async () => {
    // holdFor is longer than expiresIn: the call never releases, the expiry ends the wait. (Real time: the
    // time-skipping server does not skip while an activity runs, and an inline wait is an activity running.)
    const expiresIn = 1500;
    const runs = () => readFixtureLog(logPath).filter((e) => e.event === 'call' && e.tool === 'ask_name').length;
    const before = runs();
    const handle = await start('ask_name', {}, { expiresIn, holdFor: 10 * 60 * 1000 });
    const [request] = await waitForPending(handle);
    assert.deepEqual(await handle.result(), { output: 'cancelled', isError: false });
    assert.equal(runs() - before, 1, 'the tool ran once: the call was not released and run again');
    const received = readFixtureLog(logPath).filter((e) => e.event === 'received' && e.tool === 'ask_name');
    assert.equal(JSON.stringify(received.at(-1)?.result), JSON.stringify({ action: 'cancel' }));
    assert.deepEqual(await timersOf(handle), [{ ms: expiresIn, ended: 'fired' }], 'one timer, at the expiry');
    await assert.rejects(
      handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] }),
      /completed|not found|expired/i,
    );
  });

  it('a call released before its request expires keeps only the rest of expiresIn, then expires into cancel', async () => {
    // The server gives up after 1 s; the request expires at 15 s (before holdFor): the inline timer was the
    // expiry's, and the released request's own expiry timer waits for what is left of it. With the workflow cache off
    // (F5b) Core can drop the task that carries the release, and Temporal hands it out again after its 10 s timeout
    // (scripts/upstream/UPSTREAM.md); in a CI run drops 11-12 s apart held the release back past 15 s. So 45 s there:
    // room for three more, or the release would arrive after the expiry that this test needs to come later.
    const expiresIn = noCacheMode() ? 45_000 : 15_000;
    const handle = await start('ask_name', { timeoutMs: 1000 }, { expiresIn, holdFor: 10 * 60 * 1000 });
    await waitForPending(handle);
    assert.deepEqual(await handle.result(), { output: 'cancelled', isError: false });
    const timers = await timersEndedAs(handle, ['canceled', 'fired']);
    assert.equal(timers[0].ms, expiresIn);
    assert.ok(timers[1].ms < expiresIn - 500 && timers[1].ms > 0, `the released request waits for the rest of expiresIn, got ${timers[1].ms} ms`);
  });

  it('when the MCP server gives up, the call is released, the request stays pending, and the answer re-runs the tool from the record', async (t) => {
    const handle = await start('ask_name', { timeoutMs: 1500 });
    const watch = watchPending(handle);
    t.after(() => watch.end());
    const [request] = await waitForPending(handle);
    watch.seen.set(request.id, request);
    // The server gives up after 1.5 s: the workflow must keep the request pending, with no activity running.
    for (;;) {
      const errors = readFixtureLog(logPath).filter((e) => e.event === 'elicit_error' && e.tool === 'ask_name');
      const d = await handle.describe();
      if (errors.length > 0 && (d.raw.pendingActivities ?? []).length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
    );
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Linus' } });
    assert.deepEqual(await handle.result(), { output: 'hello Linus', isError: false });
    await recordHistory(handle, 'release-server-gave-up', suite.env.address);
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request.id], 'no new request to the human');
  });

  it('cancelling the workflow cancels the running MCP tool call (the server sees the abort)', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `hang-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'fx', tool: 'hang', heartbeatTimeout: 2000 }],
    });
    for (let i = 0; i < 200 && !readFixtureLog(logPath).some((e) => e.event === 'call' && e.tool === 'hang'); i++) await new Promise((r) => setTimeout(r, 50));
    await handle.cancel();
    await assert.rejects(handle.result(), /cancel/i);
    for (let i = 0; i < 200 && !readFixtureLog(logPath).some((e) => e.event === 'aborted' && e.tool === 'hang'); i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      readFixtureLog(logPath).some((e) => e.event === 'aborted' && e.tool === 'hang'),
      'the MCP server saw the call cancelled',
    );
  });

  for (const holdFor of [10 * 60_000, 0]) {
    const how = holdFor ? 'while the call waits inline' : 'after the call was released';
    it(`cancelling a workflow with a pending request ${how} ends it as cancelled and withdraws the request`, async () => {
      const handle = await start('ask_name', {}, { holdFor });
      const [request] = await waitForPending(handle);
      await handle.cancel();
      await assert.rejects(handle.result(), (err: unknown) => {
        assert.match(String((err as any).cause?.name ?? ''), /CancelledFailure/);
        return true;
      });
      const { events } = await handle.fetchHistory();
      assert.deepEqual(
        (await workflowTaskFailures(handle)).filter((f) => !isUnhandledCommandRetry(f)),
        [],
        'no workflow task failed on the way',
      );
      assert.ok(
        events!.some((e) => e.workflowExecutionCanceledEventAttributes),
        'the run ended as cancelled',
      );
      await recordHistory(handle, holdFor ? 'cancel-pending-inline' : 'cancel-pending-released', suite.env.address);
      await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] }), /completed|not found/i);
    });
  }

  it('a server whose command does not exist fails the call at once, naming the command (no retries)', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `missing-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'missing', tool: 'echo' }],
    });
    await assert.rejects(handle.result(), (err: unknown) => {
      const app = (err as any).cause?.cause;
      assert.equal(app?.nonRetryable, true);
      assert.match(app?.message, /server "missing": cannot start command "\/nonexistent\/durable-mcp-server" \(not found: ENOENT\)/);
      return true;
    });
    const { events } = await handle.fetchHistory();
    const started = events!.filter((e) => e.activityTaskStartedEventAttributes);
    assert.deepEqual(
      started.map((e) => e.activityTaskStartedEventAttributes!.attempt),
      [1],
    );
  });

  it('a holdFor longer than Node timers can wait (30 days) does not time the tool call out at once', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `long-hold-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'fx', tool: 'echo', arguments: { text: 'long' }, elicitation: { holdFor: 30 * 24 * 60 * 60 * 1000 }, maxAttempts: 1 }],
    });
    assert.deepEqual(await handle.result(), { output: 'echo: long', isError: false });
  });

  it('a server whose ${VAR} is unset fails its calls (retryably, naming the variable) while the worker serves the others', async () => {
    assert.ok(
      suite.worker.warnings.some((w) => /server "needsvar": field "env.TOKEN" refers to \$\{DURABLE_MCP_TEST_UNSET_TOKEN\}/.test(w)),
      suite.worker.warnings.join('\n'),
    );
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `needsvar-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'needsvar', tool: 'echo', maxAttempts: 2 }],
    });
    await assert.rejects(handle.result(), (err: unknown) => {
      const app = (err as any).cause?.cause;
      assert.equal(app?.nonRetryable, false);
      assert.match(app?.message, /refers to \$\{DURABLE_MCP_TEST_UNSET_TOKEN\}, which is not set/);
      return true;
    });
    const { events } = await handle.fetchHistory();
    assert.deepEqual(
      events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt),
      [2],
      'retried up to maxAttempts',
    );
    const echo = await suite.env.client.workflow.execute(mcpToolCall, {
      taskQueue,
      workflowId: `needsvar-other-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'fx', tool: 'echo', arguments: { text: 'ok' } }],
    });
    assert.equal(echo.output, 'echo: ok');
  });

  it('maxAttempts bounds how often a server that crashes on start is tried, and a bad value is refused naming the field', async () => {
    const id = `crashy-${Math.random().toString(36).slice(2)}`;
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: id,
      args: [{ server: 'crashy', tool: 'echo', maxAttempts: 2 }],
    });
    await assert.rejects(handle.result(), (err: unknown) => /server "crashy": failed to connect/.test(String((err as any).cause?.cause?.message)));
    const { events } = await handle.fetchHistory();
    assert.deepEqual(
      events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt),
      [2],
    );

    const bad = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `${id}-bad`,
      args: [{ server: 'fx', tool: 'echo', maxAttempts: 0 }],
    });
    await assert.rejects(bad.result(), (err: unknown) =>
      /field "maxAttempts" must be a whole number from 1 to 100, got 0/.test(String((err as any).cause?.message)),
    );
  });

  describe('waitForPending (a push for bots and UIs)', () => {
    it('returns the request as soon as it is pending, then the next one once the caller has seen the first', async () => {
      const handle = await start('ask_twice');
      const [first] = await handle.executeUpdate(waitForPendingUpdate, { args: [{ timeoutMs: 120_000 }] });
      assert.equal(first.prompt, 'First name?');
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { first: 'Ada' } }] });
      const next = await handle.executeUpdate(waitForPendingUpdate, { args: [{ seen: [first.id], timeoutMs: 120_000 }] });
      assert.deepEqual(
        next.map((r) => r.prompt),
        ['Last name?'],
      );
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: next[0].id, ok: true, data: { last: 'Lovelace' } }] });
      assert.equal((await handle.result()).output, 'Ada Lovelace');
      await recordHistory(handle, 'wait-for-pending', suite.env.address);
    });

    it('returns the current list when its timeout passes with nothing new', async () => {
      const handle = await start('ask_name');
      const [request] = await waitForPending(handle);
      const same = await handle.executeUpdate(waitForPendingUpdate, { args: [{ seen: [request.id], timeoutMs: 300 }] });
      assert.deepEqual(
        same.map((r) => r.id),
        [request.id],
      );
      await handle.signal(answerSignal, { id: request.id, ok: false, reason: 'declined' });
      assert.equal((await handle.result()).output, 'declined');
    });

    it('refuses a third waiting caller, and the waiting ones return when the workflow completes instead of holding it open', async () => {
      const handle = await start('ask_name');
      const [request] = await waitForPending(handle);
      const wait = { args: [{ seen: [request.id], timeoutMs: 600_000 }] as [WaitForPendingInput], waitForStage: WorkflowUpdateStage.ACCEPTED } as const;
      const waiting = [await handle.startUpdate(waitForPendingUpdate, wait), await handle.startUpdate(waitForPendingUpdate, wait)];
      await assert.rejects(
        handle.executeUpdate(waitForPendingUpdate, { args: [{ seen: [request.id], timeoutMs: 600_000 }] }),
        (err: unknown) => err instanceof WorkflowUpdateFailedError && /2 callers already wait on this workflow/.test(String((err as any).cause?.message)),
      );
      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
      assert.equal((await handle.result()).output, 'hello Ada');
      for (const w of await Promise.all(waiting.map((u) => u.result()))) assert.deepEqual(w, []);
    });

    it('refuses bad input, naming the field', async () => {
      const handle = await start('ask_name');
      const [request] = await waitForPending(handle);
      const refused = async (input: unknown, pattern: RegExp) =>
        assert.rejects(
          handle.executeUpdate(waitForPendingUpdate, { args: [input as any] }),
          (err: unknown) => err instanceof WorkflowUpdateFailedError && pattern.test(String((err as any).cause?.message)),
        );
      await refused({ timeoutMs: -1 }, /field "timeoutMs" must be a number of milliseconds above 0/);
      await refused({ timeoutMs: 86_400_000 }, /field "timeoutMs".*at most 600000, got 86400000/);
      await refused({ seen: 'x' }, /field "seen" must be an array of request ids, got "x"/);
      await refused({ wait: 1 }, /unknown field\(s\) "wait"/);
      await handle.signal(answerSignal, { id: request.id, ok: false });
      assert.equal((await handle.result()).output, 'cancelled');
    });
  });

  describe('bad answers', () => {
    it('are rejected by submitAnswer with a reason, dropped as signals, and the request stays answerable', async () => {
      const handle = await start('ask_form');
      const [request] = await waitForPending(handle);
      const reject = async (answer: unknown, pattern: RegExp) => {
        await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [answer as any] }), (err: unknown) => {
          assert.ok(err instanceof WorkflowUpdateFailedError, String(err));
          assert.match(String((err as any).cause?.message ?? ''), pattern);
          return true;
        });
      };
      const valid = { name: 'Ada', age: 36 };
      await reject({ id: 'nope', ok: true, data: valid }, /no pending request with id "nope"/);
      await reject('just a string', /answer must be an object/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 'old' } }, /field "age"/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 36, email: 'nope' } }, /field "email"/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 36, color: 'pink' } }, /field "color"/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 36, tags: ['a', 'b', 'c'] } }, /field "tags"/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 36, subscribe: 'yes' } }, /field "subscribe"/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 36, score: 11 } }, /field "score"/);
      await reject({ id: request.id, ok: true, data: { name: 'Ada', age: 36, birthday: '2020-02-30' } }, /field "birthday"/);
      await reject({ id: request.id, ok: true, data: { age: 36 } }, /field "name"/);
      await reject({ id: request.id, ok: true, data: { ...valid, bio: 'x'.repeat(300_000) } }, /over the limit/);
      await reject({ id: request.id, ok: true, data: valid, extra: 1 }, /unknown key/);
      // Bad signals are dropped without failing the workflow task.
      await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada', age: -1 } });
      await handle.signal(answerSignal, 'garbage' as any);
      await handle.signal(answerSignal, { id: 'unknown', ok: true } as any);
      assert.equal((await handle.query(pendingQuery)).length, 1, 'still pending after bad answers');
      const history = await handle.fetchHistory();
      assert.ok(!history.events?.some((e) => e.workflowTaskFailedEventAttributes), 'no workflow task failure');

      await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: valid }] });
      await reject({ id: request.id, ok: true, data: valid }, /no longer pending: it was already accepted/);
      const out = JSON.parse((await handle.result()).output);
      assert.equal(out.action, 'accept');
      assert.deepEqual(out.content, { name: 'Ada', age: 36, subscribe: false, size: 'm' }, 'defaults applied');
      await recordHistory(handle, 'bad-answers', suite.env.address);
    });
  });
});
