/**
 * The Nexus service `durable-mcp` on a real dev server (issue 44): a caller workflow in another namespace calls `callTool`
 * through a Nexus endpoint that the test creates with the Temporal CLI (`temporal operator namespace create`,
 * `temporal operator nexus endpoint create`); the tool asks a person, who answers through DurableMcpClient (the inbox's
 * answer path); the caller gets the result; a declined approval is a result; cancelling the caller cancels the call and
 * withdraws its request; the backing workflow's id is the operation's request id; the request says who asked; a bad
 * input is refused naming the field. One dev server for the file.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, Worker, type NexusInboundCallsInterceptor } from '@temporalio/worker';
import * as nexus from 'nexus-rpc';
import { callerOfLinks } from '../../src/contract/nexus.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { createInboxApp } from '../../src/inbox/index.js';
import { createWorker, type DurableMcpWorker } from '../../src/worker.js';
import { DevServer } from '../faults/lib.js';
import { backingWorkflowId, createNexusEndpoint } from '../helpers/nexus.js';
import { eventually, fixtureConfig, quietRuntime, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { fixtureServerPath, readFixtureLog, receivedAnswers } from '../fixtures/paths.js';

const callerWorkflows = fileURLToPath(new URL('./caller-workflows.js', import.meta.url));
const CALLER_NS = 'caller-ts';
const ENDPOINT = 'durable-mcp-test';

describe('the Nexus service durable-mcp, called from another namespace', () => {
  let server: DevServer;
  let connection: NativeConnection;
  let dmc: DurableMcpClient;
  let callers: Client;
  let durableMcp: DurableMcpWorker;
  let callerWorker: Worker;
  let running: Promise<unknown>[] = [];
  let logPath: string;
  let n = 0;

  before(async () => {
    quietRuntime();
    const dir = tempDir();
    server = await DevServer.create(join(dir, 'temporal'), `nexus-${process.pid}`);
    await server.start();
    const taskQueue = uniqueTaskQueue('nexus');
    // The caller's namespace and the endpoint, as docs/nexus.md shows them.
    await createNexusEndpoint(server.address, { namespace: CALLER_NS, endpoint: ENDPOINT, taskQueue });

    connection = await NativeConnection.connect({ address: server.address });
    logPath = join(dir, 'fixture.jsonl');
    // `down`: a server that exits as it starts (a server that cannot be reached).
    const mcpConfig = fixtureConfig(logPath, { down: { command: [process.execPath, fixtureServerPath, '--crash-on-start'] } });
    durableMcp = await createWorker({
      connection,
      namespace: 'default',
      taskQueue,
      mcpConfig,
      encryption: false,
      nexus: true,
      workerOptions: { interceptors: { nexus: [() => ({ inbound: loseFirstStartResponse })] } },
    });
    callerWorker = await Worker.create({ connection, namespace: CALLER_NS, taskQueue: 'ts-callers', workflowsPath: callerWorkflows });
    running = [durableMcp.run(), callerWorker.run()];
    const c = await server.client();
    dmc = new DurableMcpClient(c.client, { taskQueue });
    callers = new Client({ connection: c.connection, namespace: CALLER_NS });
  });

  after(async () => {
    durableMcp?.shutdown();
    callerWorker?.shutdown();
    await Promise.allSettled(running);
    await connection?.close();
    await dmc?.client.connection.close();
    await server?.kill('SIGTERM');
  });

  /** The start requests of callers whose workflow id ends in `-retried-start`, by request id: the first one's response is lost. */
  const startsOf = new Map<string, number>();
  const loseFirstStartResponse: NexusInboundCallsInterceptor = {
    async startOperation(input, next) {
      const out = await next(input);
      const callerId = callerOfLinks(input.ctx.inboundLinks)?.workflowId ?? '';
      if (!callerId.endsWith('-retried-start') && !callerId.endsWith('-retried-start-closed')) return out;
      const starts = (startsOf.get(input.ctx.requestId) ?? 0) + 1;
      startsOf.set(input.ctx.requestId, starts);
      if (starts > 1) return out;
      // `-closed`: the retry comes once the call has ended (its workflow closed).
      if (callerId.endsWith('-closed')) await dmc.client.workflow.getHandle(`mcp-nexus-${input.ctx.requestId}`).result();
      // The workflow is started; the caller's server is told the start failed (retryably), as when the worker dies
      // before it answers or the answer is lost: it retries the start, with the same request id.
      throw new nexus.HandlerError('INTERNAL', 'the first start response is lost (test)', { retryableOverride: true });
    },
  };

  const call = (input: Record<string, unknown>, operation = 'callTool', idSuffix = '') =>
    callers.workflow.start('nexusCaller', {
      taskQueue: 'ts-callers',
      workflowId: `caller-${process.pid}-${++n}${idSuffix}`,
      args: [ENDPOINT, operation, input],
    });

  it('a question: the person answers in the inbox, the caller gets the result; the request names who asked (escaped); the workflow id is the request id', async () => {
    // The caller names its own workflow: untrusted text wherever it is shown.
    const caller = await call({ server: 'fx', tool: 'ask_name' }, 'callTool', '-<img src=x>');
    const wid = await backingWorkflowId(caller);
    const [pending] = await eventually(async () => {
      const p = await dmc.pendingDetails(wid).catch(() => []);
      return p.length > 0 ? p : undefined;
    }, 'the question is pending');
    assert.deepEqual(pending!.context.caller, { namespace: CALLER_NS, workflowId: caller.workflowId, runId: caller.firstExecutionRunId });
    // The listing (the inbox's and `pending`'s) finds it, with who asked.
    const listed = await eventually(async () => (await dmc.listPending()).rows.find((r) => r.workflowId === wid), 'listed');
    assert.equal(listed.context.caller?.namespace, CALLER_NS);
    // The inbox shows who asked, escaped, and takes the person's answer.
    const inbox = createInboxApp({ client: dmc.client, taskQueue: dmc.options.taskQueue });
    const page = await (await inbox.request('/')).text();
    assert.ok(page.includes(`asked by ${CALLER_NS}/caller-${process.pid}-1-&lt;img src=x&gt; (Nexus)`), page.slice(0, 3000));
    assert.ok(!page.includes('<img src=x>'));
    const answered = await inbox.request('/api/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowId: wid, answer: { id: pending!.request.id, ok: true, data: { name: 'Ada' } } }),
    });
    assert.equal(answered.status, 200, await answered.clone().text());
    assert.deepEqual(await caller.result(), { output: 'hello Ada', isError: false });
    // A retried start finds the same workflow: its id is the operation's request id, which the caller's server keeps.
    const scheduled = (await caller.fetchHistory()).events!.find((e) => e.nexusOperationScheduledEventAttributes)!;
    assert.equal(wid, `mcp-nexus-${scheduled.nexusOperationScheduledEventAttributes!.requestId}`);
    const calls = [];
    for await (const w of dmc.client.workflow.list({ query: `WorkflowType = 'mcpToolCall' AND WorkflowId = '${wid}'` })) calls.push(w.workflowId);
    assert.deepEqual(calls, [wid], 'one call');
  });

  it('a declined approval reaches the caller as a result, not a failure', async () => {
    const caller = await call({ server: 'fx', tool: 'echo', arguments: { text: 'hi' }, approval: 'always' });
    const wid = await backingWorkflowId(caller);
    const [request] = await dmc.waitForPending(wid, { timeoutMs: 60_000 });
    await dmc.submit(wid, { id: request!.id, ok: false, reason: 'declined' }, { by: 'carol' });
    const result = (await caller.result()) as { isError: boolean; metadata?: { approval?: string }; output: string };
    assert.equal(result.isError, true);
    assert.equal(result.metadata?.approval, 'declined');
    assert.match(result.output, /declined/);
  });

  it('cancelling the caller cancels the call and withdraws its request', async () => {
    const caller = await call({ server: 'fx', tool: 'ask_name' });
    const wid = await backingWorkflowId(caller);
    await dmc.waitForPending(wid, { timeoutMs: 60_000 });
    await caller.cancel();
    await assert.rejects(caller.result(), WorkflowFailedError);
    const backing = dmc.client.workflow.getHandle(wid);
    await eventually(async () => ((await backing.describe()).status.name === 'CANCELLED' ? true : undefined), 'the call is cancelled');
    await eventually(async () => ((await dmc.listPending()).rows.some((r) => r.workflowId === wid) ? undefined : true), 'no request left');
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'accept', content: { name: 'Ada' } }], 'the server heard only the first answer');
  });

  it('a bad input fails the operation at once, naming the field (an internal field included); listTools lists', async () => {
    for (const [input, message] of [
      [{ server: 'fx', tool: 'echo', reportTo: { workflowId: 'x', step: 's' } }, /callTool: field "reportTo" is not a field of the input/],
      [{ server: 'fx', tool: 'echo', maxAttempts: 0 }, /callTool: field "maxAttempts" must be a whole number from 1 to 100, got 0/],
      [{ steps: [{ name: 'a', server: 'fx', tool: 'echo' }], state: { stage: 0 } }, /runPipeline: field "state" is not a field of the input/],
      [
        {
          steps: [
            { name: 'a', server: 'fx', tool: 'echo' },
            { name: 'a', server: 'fx', tool: 'echo' },
          ],
        },
        /runPipeline: step name "a" is used twice/,
      ],
    ] as const) {
      const caller = await call(input as Record<string, unknown>, 'steps' in input ? 'runPipeline' : 'callTool');
      const err = await caller.result().then(
        () => assert.fail('the operation should fail'),
        (e: unknown) => e as Error,
      );
      const causes: string[] = [];
      for (let e: any = err; e; e = e.cause) causes.push(String(e.message));
      assert.match(causes.join(' | '), message);
    }
    const tools = (await (await call({ server: 'fx' }, 'listTools')).result()) as Array<{ name: string }>;
    assert.ok(tools.some((t) => t.name === 'ask_name'));
  });

  it("runPipeline: a two-stage pipeline through Nexus; its steps' requests (inline and child) name who asked; the caller gets each step's result", async () => {
    const ask = { server: 'fx', tool: 'ask_name' };
    const caller = await call(
      {
        steps: [
          {
            parallel: [
              { name: 'inline', ...ask },
              { name: 'child', ...ask, child: true },
            ],
          },
          { name: 'greet', server: 'fx', tool: 'echo', arguments: { text: '{{steps.inline.output}} and {{steps.child.output}}' } },
        ],
      },
      'runPipeline',
    );
    const wid = await backingWorkflowId(caller);
    const scheduled = (await caller.fetchHistory()).events!.find((e) => e.nexusOperationScheduledEventAttributes)!;
    assert.equal(wid, `mcp-pipeline-nexus-${scheduled.nexusOperationScheduledEventAttributes!.requestId}`);
    const pending = await eventually(async () => {
      const p = await dmc.pendingDetails(wid).catch(() => []);
      return p.length === 2 ? p : undefined;
    }, 'both steps ask');
    const who = { namespace: CALLER_NS, workflowId: caller.workflowId, runId: caller.firstExecutionRunId };
    assert.deepEqual(pending.map((p) => [p.context.step, p.context.caller]).sort(), [
      ['child', who],
      ['inline', who],
    ]);
    for (const p of pending) await dmc.submit(wid, { id: p.request.id, ok: true, data: { name: p.context.step === 'child' ? 'Bo' : 'Al' } }, { by: 'carol' });
    const result = (await caller.result()) as { status: string; steps: Record<string, { status: string; result?: { output: string } }>; runs: number };
    assert.equal(result.status, 'completed');
    assert.deepEqual(Object.keys(result.steps).sort(), ['child', 'greet', 'inline']);
    assert.equal(result.steps.greet!.result!.output, 'echo: hello Al and hello Bo');
  });

  it('a failed call fails the operation: the caller gets a NexusOperationFailure whose cause names the failure (unknown tool, a server down)', async () => {
    for (const [input, type, message] of [
      [{ server: 'fx', tool: 'no_such_tool' }, 'UnknownTool', /no_such_tool/],
      [{ server: 'down', tool: 'echo', maxAttempts: 1 }, 'McpServerUnavailable', /down/],
    ] as const) {
      const caller = await call(input);
      const err = await caller.result().then(
        () => assert.fail('the operation should fail'),
        (e: unknown) => e as Error,
      );
      assert.ok(err instanceof WorkflowFailedError);
      const chain: Array<{ name: string; type?: string; message: string }> = [];
      for (let e: any = err.cause; e; e = e.cause) chain.push({ name: e.constructor?.name, type: e.type, message: String(e.message) });
      assert.equal(chain[0]!.name, 'NexusOperationFailure', JSON.stringify(chain));
      const app = chain.find((c) => c.type === type);
      assert.ok(app, `a cause of type ${type}: ${JSON.stringify(chain)}`);
      assert.match(app.message, message);
    }
  });

  it("a retried start makes one call: the first start response is lost, the caller's server starts again with the same request id", async () => {
    const calls = () => readFixtureLog(logPath).filter((e) => e.event === 'call' && e.tool === 'counter').length;
    const before = calls();
    const caller = await call({ server: 'fx', tool: 'counter' }, 'callTool', '-retried-start');
    const wid = await backingWorkflowId(caller);
    const scheduled = (await caller.fetchHistory()).events!.find((e) => e.nexusOperationScheduledEventAttributes)!;
    const requestId = scheduled.nexusOperationScheduledEventAttributes!.requestId!;
    // The backing workflow's id is the operation's request id: the retried start found it.
    assert.equal(startsOf.get(requestId), 2, 'the start was retried, with the same request id');
    const [request] = await dmc.waitForPending(wid, { timeoutMs: 60_000 });
    await dmc.submit(wid, { id: request!.id, ok: true, data: { confirm: true } }, { by: 'carol' });
    assert.deepEqual(await caller.result(), { output: 'confirmed', isError: false });
    const runs = [];
    for await (const w of dmc.client.workflow.list({ query: `WorkflowType = 'mcpToolCall' AND WorkflowId = '${wid}'` })) runs.push(w.runId);
    assert.equal(runs.length, 1, 'one mcpToolCall run');
    assert.equal(calls() - before, 1, 'the tool ran once');

    // The start's response is lost and the call ends before any retry: its completion reaches the caller's server,
    // which completes the operation with the result (seen here: it does not start again). One call, one result.
    const echoes = () => readFixtureLog(logPath).filter((e) => e.event === 'call' && e.tool === 'echo').length;
    const echoesBefore = echoes();
    const late = await call({ server: 'fx', tool: 'echo', arguments: { text: 'once' } }, 'callTool', '-retried-start-closed');
    assert.deepEqual(await late.result(), { output: 'echo: once', isError: false });
    assert.equal(echoes() - echoesBefore, 1, 'the tool ran once');
  });
});
