/**
 * The Nexus service `durable-mcp` on a real dev server (issue 44): a caller workflow in another namespace calls `callTool`
 * through a Nexus endpoint that the test creates with the Temporal CLI (`temporal operator namespace create`,
 * `temporal operator nexus endpoint create`); the tool asks a person, who answers through DurableMcpClient (the inbox's
 * answer path); the caller gets the result; a declined approval is a result; cancelling the caller cancels the call and
 * withdraws its request; the backing workflow's id is the operation's request id; the request says who asked; a bad
 * input is refused naming the field. One dev server for the file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { createInboxApp } from '../../src/inbox/index.js';
import { createWorker, type DurableMcpWorker } from '../../src/worker.js';
import { DevServer } from '../faults/lib.js';
import { eventually, fixtureConfig, quietRuntime, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { receivedAnswers } from '../fixtures/paths.js';
import { operationTokenQuery } from './caller-workflows.js';

const callerWorkflows = fileURLToPath(new URL('./caller-workflows.js', import.meta.url));
const CALLER_NS = 'caller-ts';
const ENDPOINT = 'durable-mcp-test';

/** The backing workflow's id, from the operation's token (`{t, ns, wid}` in base64url). */
async function backingWorkflowId(caller: WorkflowHandle): Promise<string> {
  const token = await eventually(() => caller.query(operationTokenQuery).catch(() => undefined), 'the operation started');
  return (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { wid: string }).wid;
}

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
    const cli = findTemporalBinary('cli', { allowDownload: false }).path!;
    const temporal = (...args: string[]) => execFileSync(cli, [...args, '--address', server.address], { encoding: 'utf8' });
    temporal('operator', 'namespace', 'create', '--namespace', CALLER_NS);
    temporal('operator', 'nexus', 'endpoint', 'create', '--name', ENDPOINT, '--target-namespace', 'default', '--target-task-queue', taskQueue);
    await eventually(() => {
      try {
        temporal('operator', 'namespace', 'describe', '--namespace', CALLER_NS);
        return true;
      } catch {
        return undefined;
      }
    }, 'the caller namespace is known');

    connection = await NativeConnection.connect({ address: server.address });
    logPath = join(dir, 'fixture.jsonl');
    durableMcp = await createWorker({ connection, namespace: 'default', taskQueue, mcpConfig: fixtureConfig(logPath), encryption: false, nexus: true });
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
    ] as const) {
      const caller = await call(input as Record<string, unknown>);
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
});
