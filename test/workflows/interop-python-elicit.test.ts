/**
 * Interop (issue #21, docs/eras.md): a tool of the official MCP Python SDK 2.x that asks with `ctx.elicit(...)` — how
 * its docs and almost every Python server ask — through the real worker. The worker negotiates 2026-07-28 with it
 * (`era: "auto"`), the SDK refuses to send `elicitation/create` in that era (-32600 "no back-channel for
 * server-initiated requests"), and the worker runs the call again in the legacy era, which it then remembers for the
 * server. Over stdio and over stateful streamable HTTP the legacy behaviour set holds (answered by signal, an update
 * rejected then accepted, decline, expiry, released then answered), the person asked once. Over stateless HTTP the
 * SDK has no channel for `ctx.elicit` in either era: the call fails at once, saying so, and the MRTR way works.
 * A server pinned to `era: "modern"` fails such a call at once, naming the config to change. The same tool on the
 * Python SDK 1.x (legacy era only, in .tools/python-mcp1) passes the same set, with no fallback needed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { pythonElicitServerPath, pythonSdk1Dir, pythonSdkDir, startPythonServer } from '../fixtures/python/paths.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

const dir = tempDir();
const logs = {
  stdio: join(dir, 'py-stdio.jsonl'),
  http: join(dir, 'py-http.jsonl'),
  stateless: join(dir, 'py-stateless.jsonl'),
  stdio1: join(dir, 'py1-stdio.jsonl'),
  http1: join(dir, 'py1-http.jsonl'),
};
const stdio = (log: string, extra: Record<string, unknown> = {}, sdkDir = pythonSdkDir()) => ({
  command: ['python3', pythonElicitServerPath, 'stdio'],
  env: { PYTHONPATH: sdkDir, FIXTURE_LOG: log },
  ...extra,
});
const extraServers: Record<string, unknown> = {
  pystdio: stdio(logs.stdio),
  pymodern: stdio(join(dir, 'py-modern.jsonl'), { era: 'modern' }),
  // The 1.x comparison: the same tool on the Python SDK 1.x, which speaks the legacy era only.
  py1stdio: stdio(logs.stdio1, {}, pythonSdk1Dir()),
};
const servers: Array<{ close(): Promise<void> }> = [];
before(async () => {
  const http = await startPythonServer({ script: pythonElicitServerPath, args: ['http'], env: { FIXTURE_LOG: logs.http } });
  const stateless = await startPythonServer({ script: pythonElicitServerPath, args: ['stateless-http'], env: { FIXTURE_LOG: logs.stateless } });
  const http1 = await startPythonServer({ script: pythonElicitServerPath, args: ['http'], env: { FIXTURE_LOG: logs.http1 }, sdkDir: pythonSdk1Dir() });
  servers.push(http, stateless, http1);
  extraServers.pyhttp = { url: http.url };
  extraServers.py1http = { url: http1.url };
  extraServers.pystateless = { url: stateless.url };
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('a Python SDK 2.x tool that asks with ctx.elicit, through the worker', () => {
  const suite = suiteEnvironment({ name: 'interop-py-elicit', extraServers });
  const start = (server: string, tool = 'greet', elicitation?: { expiresIn?: number; holdFor?: number }) =>
    suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `${server}-${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server, tool, ...(elicitation ? { elicitation } : {}) }],
    });
  const received = (log: string) => readFixtureLog(log).filter((e) => e.event === 'received');

  for (const [server, log, sdk] of [
    ['pystdio', logs.stdio, 2],
    ['pyhttp', logs.http, 2],
    ['py1stdio', logs.stdio1, 1],
    ['py1http', logs.http1, 1],
  ] as const) {
    describe(`${server}: SDK ${sdk}.x, era auto`, () => {
      it('answered by signal: the call is run again in the legacy era, the person asked once, the answer reaches the tool', async (t) => {
        const handle = await start(server);
        const watch = watchPending(handle);
        t.after(() => watch.end());
        const [request] = await waitForPending(handle);
        watch.seen.set(request.id, request); // the watch polls: it may not have seen it before the answer
        assert.equal(request.kind, 'input');
        assert.equal(request.prompt, 'What is your name? (python ctx.elicit)');
        await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
        assert.deepEqual(JSON.parse((await handle.result()).output), { result: 'Hi Ada' });
        assert.deepEqual([...(await watch.stop()).keys()], [request.id], 'the person was asked once');
        // 2.x offers 2026-07-28 and refuses to ask in it: the worker fell back and remembers it; 1.x negotiated legacy itself.
        assert.equal(suite.worker.pool.asksTheOldWay(server, 'greet'), sdk === 2, "the worker remembers a 2.x server's tool asks the old way");
        const last = received(log).at(-1)!;
        assert.deepEqual([last.action, last.content], ['accept', { name: 'Ada' }]);
      });

      it('an update rejected (it does not match the schema), then one accepted', async () => {
        const handle = await start(server);
        const [request] = await waitForPending(handle);
        await assert.rejects(
          handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 42 } as any }] }),
          (err: unknown) => err instanceof WorkflowUpdateFailedError && /field "name"/.test(String((err.cause as Error)?.message)),
        );
        assert.deepEqual(
          (await handle.query(pendingQuery)).map((r) => r.id),
          [request.id],
          'still pending',
        );
        await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Grace' } }] });
        assert.deepEqual(JSON.parse((await handle.result()).output), { result: 'Hi Grace' });
      });

      it('declined: the tool sees decline', async () => {
        const handle = await start(server);
        const [request] = await waitForPending(handle);
        await handle.signal(answerSignal, { id: request.id, ok: false, reason: 'declined' });
        assert.deepEqual(JSON.parse((await handle.result()).output), { result: 'no name (decline)' });
      });

      it('expired: the tool sees cancel', async () => {
        // The result alone shows the expiry: no look at the pending request, which a busy machine could miss in 1.5 s.
        const handle = await start(server, 'greet', { expiresIn: 1500 });
        assert.deepEqual(JSON.parse((await handle.result()).output), { result: 'no name (cancel)' });
      });

      it('released after holdFor, then answered: the re-run is answered from the record, the person asked once', async (t) => {
        const handle = await start(server, 'greet', { holdFor: 500 });
        const watch = watchPending(handle);
        t.after(() => watch.end());
        const [request] = await waitForPending(handle);
        watch.seen.set(request.id, request);
        await eventually(async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0, 'the call released');
        const runs = readFixtureLog(log).filter((e) => e.event === 'run').length;
        await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Lin' } });
        assert.deepEqual(JSON.parse((await handle.result()).output), { result: 'Hi Lin' });
        assert.deepEqual([...(await watch.stop()).keys()], [request.id], 'the person was asked once');
        assert.equal(readFixtureLog(log).filter((e) => e.event === 'run').length, runs + 1, 'the tool ran again once');
      });
    });
  }

  /** `greet_mrtr` on `server`: its question is a modern-era round request, and Ada's answer reaches the tool. */
  const mrtrRound = async (server: string) => {
    const handle = await start(server, 'greet_mrtr');
    const [request] = await waitForPending(handle);
    assert.equal(request.prompt, 'What is your name? (python, MRTR)');
    assert.match(request.id, /^c1\.r1\./, 'a modern-era round request');
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
    assert.deepEqual(JSON.parse((await handle.result()).output), { result: 'Hi Ada, welcome' });
  };

  it('stdio, after one tool fell back to the legacy era: a tool that asks the MRTR way (Resolve(...)) keeps its rounds', async () => {
    assert.equal(suite.worker.pool.asksTheOldWay('pystdio', 'greet'), true);
    assert.equal(suite.worker.pool.asksTheOldWay('pystdio', 'greet_mrtr'), false, 'the fallback is per tool, not per server');
    await mrtrRound('pystdio');
  });

  it('stateless HTTP, the MRTR way (Resolve(...)) in the modern era: the request is pending and the answer reaches the tool', async () => {
    // Before the ctx.elicit case below, which makes the worker remember the legacy era for this server.
    await mrtrRound('pystateless');
  });

  it('stateless HTTP: ctx.elicit has no channel in either era, so the call fails at once saying so (nobody asked)', async () => {
    const handle = await start('pystateless');
    await assert.rejects(handle.result(), (err: any) => {
      const app = err.cause?.cause;
      assert.equal(app?.type, 'ToolCallFailed');
      assert.equal(app?.nonRetryable, true);
      assert.match(app?.message, /no back-channel for server-initiated requests.*cannot ask anyone/);
      return true;
    });
    const { events } = await handle.fetchHistory();
    const attempts = events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.deepEqual(attempts, [1], 'one attempt: the modern run, then the legacy one, no more');
    assert.deepEqual(await handle.query(pendingQuery), []);
  });

  it('era "modern" pinned: a tool that asks the old way fails at once, naming the setting to change', async () => {
    const handle = await start('pymodern');
    await assert.rejects(handle.result(), (err: any) => {
      const app = err.cause?.cause;
      assert.equal(app?.type, 'McpConfigInvalid');
      assert.match(app?.message, /server "pymodern": tool "greet": .*set "era": "auto" or "legacy"/);
      return true;
    });
    assert.equal(suite.worker.pool.asksTheOldWay('pymodern', 'greet'), false);
  });
});
