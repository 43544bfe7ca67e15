/**
 * The modern era (MCP 2026-07-28, multi round-trip requests) through the worker, against a fixture server
 * written with `@modelcontextprotocol/server` v2, over stdio and over stateless streamable HTTP.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpPipeline, mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingDetailsQuery, pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { fixtureBothWays } from '../helpers/file-server.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { recordHistory, workflowTaskFailures } from '../helpers/history.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

const dir = tempDir();
// Started before the suite's worker: the HTTP server's URL goes into the worker's MCP config.
const { extraServers, logs } = fixtureBothWays(modernServerPath, { stdio: 'mstdio', http: 'mhttp' });
const { stdio: stdioLog, http: httpLog } = logs;

describe('modern era (MRTR) through the worker', () => {
  const suite = suiteEnvironment({ name: 'mrtr', extraServers });

  for (const [server, logPath] of [
    ['mstdio', stdioLog],
    ['mhttp', httpLog],
  ] as const) {
    const start = (tool: string, extra: Record<string, unknown> = {}) =>
      suite.env.client.workflow.start(mcpToolCall, {
        taskQueue: suite.taskQueue,
        workflowId: `${server}-${tool}-${Math.random().toString(36).slice(2)}`,
        args: [{ server, tool, arguments: { label: tool }, ...extra }],
      });
    /** Every run of the tool's body on the server, with what it received. */
    const record = (handle: WorkflowHandle, name: string) => (server === 'mstdio' ? recordHistory(handle, name, suite.env.address) : Promise.resolve());
    const runs = (tool: string, since: number) => readFixtureLog(logPath).filter((e) => e.event === 'tool' && e.tool === tool && (e.ts as number) >= since);
    const noActivityNoSession = async (handle: WorkflowHandle) => {
      // The round's activity has completed: nothing runs and no session is leased while the person thinks.
      await eventually(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'no pending activity');
      assert.equal(suite.worker.pool.stats()[server]?.leased ?? 0, 0, 'no session held');
    };

    describe(`over ${server === 'mstdio' ? 'stdio' : 'stateless streamable HTTP'}`, () => {
      it('one question: pending shows the exact Request, nothing is held while it waits, the answer signal reaches the server as accept, the tool body runs once per round', async () => {
        const t0 = Date.now();
        const handle = await start('ask_name');
        const [request] = await waitForPending(handle);
        assert.deepEqual(Object.keys(request).sort(), ['data', 'expiresAt', 'id', 'kind', 'prompt']);
        assert.equal(request.kind, 'input');
        assert.equal(request.prompt, 'What is your name?');
        assert.deepEqual((request.data as any).schema, {
          type: 'object',
          properties: { name: { type: 'string', title: 'Name', minLength: 1 } },
          required: ['name'],
        });
        assert.match(request.id, /^c1\.r1\.name\.[0-9a-f]{10}$/);
        await noActivityNoSession(handle);
        await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
        assert.deepEqual(await handle.result(), {
          output: 'Hello Ada',
          isError: false,
          metadata: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '1.0.0' } } },
        });
        const r = runs('ask_name', t0);
        assert.equal(r.length, 2, 'one tool body run per round');
        assert.deepEqual(r[0].inputResponses, null);
        assert.deepEqual(r[1].inputResponses, { name: { action: 'accept', content: { name: 'Ada' } } });
        assert.deepEqual(await handle.query(pendingQuery), []);
        await record(handle, 'mrtr-one-question');
      });

      it('two questions in one round are pending at once; one answered by signal, one by the submitAnswer update', async () => {
        const t0 = Date.now();
        const handle = await start('two_questions');
        const requests = await waitForPending(handle, 2);
        const byPrompt = Object.fromEntries(requests.map((q) => [q.prompt, q]));
        assert.deepEqual(Object.keys(byPrompt).sort(), ['Favourite colour?', 'What is your name?']);
        // A bad answer is rejected and the request stays pending.
        await assert.rejects(
          handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byPrompt['Favourite colour?'].id, ok: true, data: { color: 'pink' } }] }),
          (err: any) => /field "color"/.test(String(err.cause?.message)),
        );
        await handle.signal(answerSignal, { id: byPrompt['What is your name?'].id, ok: true, data: { name: 'Grace' } });
        const res = await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byPrompt['Favourite colour?'].id, ok: true, data: { color: 'blue' } }] });
        assert.deepEqual(res, { id: byPrompt['Favourite colour?'].id, action: 'accept' });
        assert.equal((await handle.result()).output, 'Grace likes blue');
        await record(handle, 'mrtr-two-questions');
        const r = runs('two_questions', t0);
        assert.equal(r.length, 2);
        assert.deepEqual(r[1].inputResponses, {
          name: { action: 'accept', content: { name: 'Grace' } },
          color: { action: 'accept', content: { color: 'blue' } },
        });
      });

      it('two rounds: the second question carries the first answer, and the requestState comes back as sent', async () => {
        const t0 = Date.now();
        const handle = await start('two_rounds');
        const watch = watchPending(handle);
        const [first] = await waitForPending(handle);
        // The watcher samples every 100 ms: what the test itself saw pending counts as shown too.
        watch.seen.set(first.id, first);
        await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { name: 'Linus' } }] });
        const second = await eventually(async () => (await handle.query(pendingQuery)).find((q) => q.id !== first.id), 'the second round');
        watch.seen.set(second.id, second);
        assert.equal(second.prompt, 'How old are you, Linus?');
        assert.match(second.id, /^c1\.r2\.age\./);
        await handle.signal(answerSignal, { id: second.id, ok: true, data: { age: 54 } });
        assert.equal((await handle.result()).output, 'Linus is 54');
        await record(handle, 'mrtr-two-rounds');
        const seen = await watch.stop();
        assert.deepEqual([...seen.keys()], [first.id, second.id], 'each question asked once');
        const r = runs('two_rounds', t0);
        assert.equal(r.length, 3);
        assert.equal(r[2].requestState, JSON.stringify({ name: 'Linus' }));
      });

      it('URL mode is an authorization Request with the link; accept reaches the server', async () => {
        const handle = await start('connect_url');
        const [request] = await waitForPending(handle);
        assert.equal(request.kind, 'authorization');
        assert.equal(request.url, 'https://auth.example.com/login?x=1');
        assert.equal(request.prompt, 'Log in to Example');
        assert.equal(request.data, undefined);
        await handle.signal(answerSignal, { id: request.id, ok: true });
        assert.equal((await handle.result()).output, 'connected');
      });

      it('a requestState-only round (load shedding) is retried after a short pause, with no request for a person', async () => {
        const t0 = Date.now();
        const handle = await start('busy');
        assert.equal((await handle.result()).output, 'done after a retry');
        await record(handle, 'mrtr-request-state-only');
        const r = runs('busy', t0);
        assert.deepEqual(
          r.map((e) => e.requestState),
          [null, 'retry-later'],
        );
      });

      it('an HMAC-protected requestState verifies on the server: the echo is byte for byte', async () => {
        const handle = await start('hmac_name');
        const [request] = await waitForPending(handle);
        await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
        assert.equal((await handle.result()).output, 'verified Ada ({"step":1,"nonce":"n-Ωé"})');
      });

      it('a server that never stops asking fails the call at maxRounds, naming it (non-retryable)', async () => {
        const t0 = Date.now();
        const handle = await start('never_done', { maxRounds: 3 });
        await assert.rejects(handle.result(), (err: any) => {
          assert.equal(err.cause?.type, 'RoundLimitExceeded');
          assert.match(err.cause?.message, /still required input after 3 rounds \(maxRounds 3\)/);
          return true;
        });
        assert.equal(runs('never_done', t0).length, 3);
      });

      it('a sampling request the client never declared fails the call clearly, non-retryably, and asks nobody', async () => {
        const t0 = Date.now();
        const handle = await start('sampling');
        await assert.rejects(handle.result(), (err: any) => {
          const app = err.cause?.cause;
          assert.equal(app?.type, 'UnsupportedInputRequest');
          assert.equal(app?.nonRetryable, true);
          assert.match(app?.message, /asked for input of kind "sampling\/createMessage" \(key "llm"\), which this client never declared/);
          return true;
        });
        assert.equal(runs('sampling', t0).length, 1, 'not retried');
        assert.deepEqual(await handle.query(pendingQuery), []);
      });

      for (const [tool, key, reason] of [
        ['hostile_url', 'login', /url must be an https: link .*javascript: URL/],
        ['hostile_schema', 'who', /requires "ghost", which is not among its properties/],
      ] as const) {
        it(`a hostile input request (${tool}) is refused at arrival: the call fails naming the key and the reason, nobody is asked, the tool runs once`, async () => {
          const t0 = Date.now();
          const handle = await start(tool);
          await assert.rejects(handle.result(), (err: any) => {
            const app = err.cause?.cause;
            assert.equal(app?.type, 'ElicitationRefused');
            assert.equal(app?.nonRetryable, true);
            assert.match(app?.message, new RegExp(`input request "${key}": elicitation refused: `));
            assert.match(app?.message, reason);
            return true;
          });
          assert.equal(runs(tool, t0).length, 1, 'not retried');
          assert.deepEqual(await handle.query(pendingQuery), []);
          assert.deepEqual(await workflowTaskFailures(handle), []);
        });
      }

      it('an expired request reaches the server as cancel for that key in the next round', async () => {
        const t0 = Date.now();
        // The result alone shows the expiry: no look at the pending request, which a busy machine could miss in 1 s.
        const handle = await start('ask_name', { elicitation: { expiresIn: 1000 } });
        assert.equal((await handle.result()).output, 'no name (cancel)');
        await record(handle, 'mrtr-expiry');
        const r = runs('ask_name', t0);
        assert.deepEqual(r.at(-1)?.inputResponses, { name: { action: 'cancel' } });
      });
    });
  }

  /** A call of `needs_login` (legacy -32042 with a URL) on the fixture server, and its pending authorization request. */
  async function needsLogin() {
    const marker = join(dir, `login-${Math.random().toString(36).slice(2)}`);
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `url-error-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'fx', tool: 'needs_login', arguments: { marker } }],
    });
    const [request] = await waitForPending(handle);
    return { marker, handle, request };
  }

  it('legacy -32042 (URLElicitationRequiredError): the URL becomes an authorization request, and once it is done the call is retried and finishes', async () => {
    const { marker, handle, request } = await needsLogin();
    assert.equal(request.kind, 'authorization');
    assert.equal(request.prompt, 'Connect your Example account');
    assert.match(request.url!, /^https:\/\/example\.test\/connect\?state=/);
    assert.equal(((await handle.describe()).raw.pendingActivities ?? []).length, 0, 'not retried while the person has not been');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true }] });
    assert.equal((await handle.result()).output, 'logged in');
    await recordHistory(handle, 'url-error-32042', suite.env.address);
    const calls = readFixtureLog(suite.logPath).filter((e) => e.event === 'call' && e.tool === 'needs_login' && (e.args as any)?.marker === marker);
    assert.equal(calls.length, 2, 'called once before and once after the URL');
  });

  it('legacy -32042 declined: the call fails naming the request, non-retryably', async () => {
    const { handle, request } = await needsLogin();
    await handle.signal(answerSignal, { id: request.id, ok: false, reason: 'declined' });
    await assert.rejects(handle.result(), (err: any) => err.cause?.type === 'UrlElicitationRefused' && err.cause?.message.includes(request.id));
  });

  it('a pipeline with a modern-era inline step and child step: both listed on the pipeline id (one inbox), answered there, results flow on', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue: suite.taskQueue,
      workflowId: `mrtr-pipeline-${Math.random().toString(36).slice(2)}`,
      args: [
        {
          steps: [
            {
              parallel: [
                { name: 'inline', server: 'mstdio', tool: 'two_rounds' },
                { name: 'child', server: 'mhttp', tool: 'ask_name', child: true },
              ],
            },
            { name: 'after', server: 'mstdio', tool: 'plain', arguments: { label: '{{steps.child.output}} + {{steps.inline.output}}' } },
          ],
        },
      ],
    });
    await waitForPending(handle, 2);
    const byStep = Object.fromEntries((await handle.query(pendingDetailsQuery)).map((d) => [d.context.step, d]));
    assert.deepEqual(Object.keys(byStep).sort(), ['child', 'inline']);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: byStep.child.request.id, ok: true, data: { name: 'Kid' } }] });
    await handle.signal(answerSignal, { id: byStep.inline.request.id, ok: true, data: { name: 'Ann' } });
    const second = await eventually(
      async () => (await handle.query(pendingQuery)).find((q) => q.prompt === 'How old are you, Ann?'),
      "the inline step's second round",
    );
    await handle.signal(answerSignal, { id: second.id, ok: true, data: { age: 7 } });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.steps.after.result?.output, 'plain Hello Kid + Ann is 7');
  });

  it('a pipeline continues-as-new while a modern-era request is pending, and still asks the person once', async () => {
    const t0 = Date.now();
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue: suite.taskQueue,
      workflowId: `mrtr-can-${Math.random().toString(36).slice(2)}`,
      args: [{ maxHistoryEvents: 8, steps: [{ name: 'who', server: 'mstdio', tool: 'ask_name' }] }],
    });
    const firstRunId = (await handle.describe()).runId;
    const watch = watchPending(handle);
    const [request] = await waitForPending(handle);
    watch.seen.set(request.id, request);
    await eventually(async () => (await handle.describe()).runId !== firstRunId, 'continue-as-new');
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
      'same request pending in the new run',
    );
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    const result = await handle.result();
    assert.equal(result.steps.who.result?.output, 'Hello Ada');
    assert.ok(result.runs >= 2);
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request.id], 'asked once');
    const runs = readFixtureLog(stdioLog).filter((e) => e.event === 'tool' && e.tool === 'ask_name' && (e.ts as number) >= t0);
    assert.deepEqual(runs.at(-1)?.inputResponses, { name: { action: 'accept', content: { name: 'Ada' } } });
  });

  it('a bad maxRounds is refused up front, naming the field', async () => {
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `bad-rounds-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'mstdio', tool: 'ask_name', maxRounds: 0 }],
    });
    await assert.rejects(handle.result(), (err: any) => /field "maxRounds" must be a whole number from 1 to 100, got 0/.test(String(err.cause?.message)));
  });
});
