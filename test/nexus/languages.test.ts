/**
 * Callers in other languages (issue 44), each a workflow in its own namespace calling durable-mcp's `callTool` through
 * the Nexus endpoint "durable-mcp" on a real dev server: Python (examples/nexus-python/caller.py, `temporalio` from
 * PyPI) and Go (examples/nexus-go, Temporal's Go SDK from the module proxy, built offline from the module cache
 * `npm run tools` fills). durable-mcp's worker is a separate process (`durable-mcp worker --nexus`): it is SIGKILLed while
 * the question waits and started again, the person answers in the inbox, the caller gets the result and the person was
 * asked once. A declined approval reaches the Python workflow as a result. The examples' own `call` commands run too.
 * One dev server for the file.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { createInboxApp } from '../../src/inbox/index.js';
import { spawnCommand, spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { DevServer } from '../faults/lib.js';
import { pythonSdkDir } from '../fixtures/python/paths.js';
import { buildGoModule, goNexusCallerDir } from '../fixtures/go/paths.js';
import { receivedAnswers } from '../fixtures/paths.js';
import { eventually, fixtureConfig, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { watchPending } from '../helpers/watch.js';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const callerPy = join(root, 'examples', 'nexus-python', 'caller.py');
const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));
const CALLER_NS = 'caller-py';
const GO_NS = 'caller-go';

/** The backing workflow's id: the operation's request id, from the caller's NexusOperationScheduled event. */
async function backingWorkflowId(caller: WorkflowHandle): Promise<string> {
  const requestId = await eventually(async () => {
    const events = (await caller.fetchHistory()).events ?? [];
    return events.find((e) => e.nexusOperationScheduledEventAttributes)?.nexusOperationScheduledEventAttributes?.requestId ?? undefined;
  }, 'the operation is scheduled');
  return `mcp-nexus-${requestId}`;
}

/** …once the handler has started it. */
async function startedBackingWorkflowId(caller: WorkflowHandle, dmc: DurableMcpClient): Promise<string> {
  const wid = await backingWorkflowId(caller);
  await eventually(
    () =>
      dmc.client.workflow
        .getHandle(wid)
        .describe()
        .then(
          () => true,
          () => undefined,
        ),
    'the operation started its workflow',
  );
  return wid;
}

describe('Python and Go workflows call durable-mcp through Nexus', () => {
  let server: DevServer;
  let dmc: DurableMcpClient;
  let callers: Client;
  let durableMcp: SpawnedProcess;
  let python: SpawnedProcess;
  let go: SpawnedProcess;
  let goBinary: string;
  let goCallers: Client;
  let logPath: string;
  let configPath: string;
  let taskQueue: string;
  let n = 0;
  const pythonEnv = () => ({ PYTHONPATH: pythonSdkDir(), TEMPORAL_ADDRESS: server.address, CALLER_NAMESPACE: CALLER_NS });
  const goEnv = () => ({ TEMPORAL_ADDRESS: server.address, CALLER_NAMESPACE: GO_NS });
  const startDurableMcp = async () => {
    durableMcp = spawnNode([workerEntry, '--mcp-config', configPath, '--nexus'], {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: taskQueue,
    });
    await durableMcp.waitFor(/Nexus service durable-mcp/);
  };

  before(async () => {
    const dir = tempDir();
    server = await DevServer.create(join(dir, 'temporal'), `nexus-py-${process.pid}`);
    await server.start();
    taskQueue = uniqueTaskQueue('nexus-py');
    const cli = findTemporalBinary('cli', { allowDownload: false }).path!;
    const temporal = (...args: string[]) => execFileSync(cli, [...args, '--address', server.address], { encoding: 'utf8' });
    temporal('operator', 'namespace', 'create', '--namespace', CALLER_NS);
    temporal('operator', 'namespace', 'create', '--namespace', GO_NS);
    temporal('operator', 'nexus', 'endpoint', 'create', '--name', 'durable-mcp', '--target-namespace', 'default', '--target-task-queue', taskQueue);
    logPath = join(dir, 'fixture.jsonl');
    configPath = join(dir, 'mcp.json');
    writeFileSync(configPath, JSON.stringify(fixtureConfig(logPath)));
    await startDurableMcp();
    // The namespace may be unknown for a moment: the Python worker fails to start then; start it again.
    python = await eventually(async () => {
      const p = spawnCommand('python3', [callerPy, 'worker'], pythonEnv());
      return p.waitFor(/READY caller worker/, 30_000).then(
        () => p,
        async () => {
          await p.kill('SIGKILL');
          return undefined;
        },
      );
    }, 'the Python worker runs');
    goBinary = buildGoModule(goNexusCallerDir, join(dir, 'nexus-caller'), false, 'the Go Nexus caller');
    go = await eventually(async () => {
      const p = spawnCommand(goBinary, ['worker'], goEnv());
      return p.waitFor(/READY caller worker/, 30_000).then(
        () => p,
        async () => {
          await p.kill('SIGKILL');
          return undefined;
        },
      );
    }, 'the Go worker runs');
    const c = await server.client();
    dmc = new DurableMcpClient(c.client, { taskQueue });
    callers = new Client({ connection: c.connection, namespace: CALLER_NS });
    goCallers = new Client({ connection: c.connection, namespace: GO_NS });
  });

  after(async () => {
    await python?.kill('SIGTERM');
    await go?.kill('SIGTERM');
    await durableMcp?.kill('SIGTERM');
    await dmc?.client.connection.close();
    await server?.kill('SIGTERM');
  });

  const callFromPython = (call: Record<string, unknown>) =>
    callers.workflow.start('CallTool', { taskQueue: 'nexus-python', workflowId: `py-${process.pid}-${++n}`, args: [call] });
  const answerInInbox = async (workflowId: string, answer: Record<string, unknown>) => {
    const inbox = createInboxApp({ client: dmc.client, taskQueue });
    const res = await inbox.request('/api/answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowId, answer }),
    });
    assert.equal(res.status, 200, await res.clone().text());
  };

  it('the worker is SIGKILLed while the question waits; after its restart the person answers in the inbox, asked once; Python gets the result', async () => {
    const caller = await callFromPython({ server: 'fx', tool: 'counter', heartbeatTimeout: 2000, elicitation: { holdFor: '10m' } });
    const wid = await startedBackingWorkflowId(caller, dmc);
    const backing = dmc.client.workflow.getHandle(wid);
    const watch = watchPending(backing);
    const [request] = await dmc.waitForPending(wid, { timeoutMs: 60_000 });
    watch.seen.set(request!.id, request!);
    const [listed] = await dmc.pendingDetails(wid);
    assert.deepEqual(listed!.context.caller, { namespace: CALLER_NS, workflowId: caller.workflowId, runId: caller.firstExecutionRunId });

    await durableMcp.kill('SIGKILL');
    await startDurableMcp();
    await answerInInbox(wid, { id: request!.id, ok: true, data: { confirm: true } });
    assert.deepEqual(await caller.result(), { output: 'confirmed', isError: false });
    const seen = await watch.stop();
    assert.deepEqual([...seen.keys()], [request!.id], 'pending never showed a second request');
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'accept', content: { confirm: true } }], 'the server heard one answer');
  });

  it('a declined approval reaches the Python workflow as a result', async () => {
    const caller = await callFromPython({ server: 'fx', tool: 'echo', arguments: { text: 'hi' }, approval: 'always' });
    const wid = await startedBackingWorkflowId(caller, dmc);
    const [request] = await dmc.waitForPending(wid, { timeoutMs: 60_000 });
    await answerInInbox(wid, { id: request!.id, ok: false, reason: 'declined' });
    const result = (await caller.result()) as { isError: boolean; output: string; metadata?: { approval?: string } };
    assert.equal(result.isError, true);
    assert.equal(result.metadata?.approval, 'declined');
  });

  it("the example's call command prints the tool's result", async () => {
    const { stdout } = await promisify(execFile)('python3', [callerPy, 'call', 'fx', 'echo', '{"text": "hi"}'], {
      env: { ...process.env, ...pythonEnv() },
      timeout: 120_000,
    });
    assert.deepEqual(JSON.parse(stdout), { output: 'echo: hi', isError: false });
  });

  it('Go: the worker is SIGKILLed while the question waits; after its restart the person answers in the inbox, asked once; Go gets the result', async () => {
    const caller = await goCallers.workflow.start('CallTool', {
      taskQueue: 'nexus-go',
      workflowId: `go-${process.pid}-${++n}`,
      args: [{ server: 'fx', tool: 'ask_name', heartbeatTimeout: 2000, elicitation: { holdFor: '10m' } }],
    });
    const wid = await startedBackingWorkflowId(caller, dmc);
    const watch = watchPending(dmc.client.workflow.getHandle(wid));
    const [request] = await dmc.waitForPending(wid, { timeoutMs: 60_000 });
    watch.seen.set(request!.id, request!);
    assert.deepEqual((await dmc.pendingDetails(wid))[0]!.context.caller, {
      namespace: GO_NS,
      workflowId: caller.workflowId,
      runId: caller.firstExecutionRunId,
    });
    const before = receivedAnswers(logPath).length;

    await durableMcp.kill('SIGKILL');
    await startDurableMcp();
    await answerInInbox(wid, { id: request!.id, ok: true, data: { name: 'Grace' } });
    assert.deepEqual(await caller.result(), { output: 'hello Grace', isError: false });
    assert.deepEqual([...(await watch.stop()).keys()], [request!.id], 'pending never showed a second request');
    assert.deepEqual(receivedAnswers(logPath).slice(before), [{ action: 'accept', content: { name: 'Grace' } }], 'the server heard one answer');
  });

  it("Go: the example's call command prints the tool's result", async () => {
    const { stdout } = await promisify(execFile)(goBinary, ['call', 'fx', 'echo', '{"text": "hi"}'], { env: { ...process.env, ...goEnv() }, timeout: 120_000 });
    assert.deepEqual(JSON.parse(stdout), { output: 'echo: hi', isError: false });
  });
});
