import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { QueryNotRegisteredError, ServiceError } from '@temporalio/client';
import { NamespaceNotFoundError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { fromTemporalError } from '../../src/client/temporal-errors.js';
import { workflowTaskFailing } from '../../src/client/errors.js';
import { EXIT_OF } from '../../src/cli/commands/common.js';
import { cli, cliHarness, EXIT, run } from '../helpers/cli.js';
import { tempDir } from '../helpers/temporal.js';

describe('the CLI says why a call fails, with documented exit codes (dev server, a worker process, real MCP servers)', () => {
  const h = cliHarness();

  it('a failed call prints its cause (type, message, server, tool) and exits 1; --json prints an error object', async () => {
    await h.startWorkerProcess();
    const health = await run(['health', '--json'], h.cliEnv);
    assert.equal(health.code, 0, health.stderr);
    assert.deepEqual(JSON.parse(health.stdout), { taskQueue: h.cliEnv.DURABLE_MCP_TASK_QUEUE, workerPolls: true });
    const noQueue = await run(['health', '--task-queue', 'nobody-polls-this'], h.cliEnv);
    assert.equal(noQueue.code, EXIT.NO_WORKER);
    // The bundled Temporal CLI, through the passthrough, against the same server.
    const listed = await run(['temporal', 'operator', 'search-attribute', 'list', '--address', h.env.address], h.cliEnv);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /DurableMcpAwaitingInput/);
    const unknownServer = await run(['call', 'nosuch', 'book_table', '--wait'], h.cliEnv);
    assert.equal(unknownServer.code, EXIT.CALL_FAILED, unknownServer.stderr);
    assert.match(unknownServer.stderr, /\(nosuch\/book_table\) failed: UnknownServer: unknown MCP server "nosuch"; configured servers: fx, ghost/);

    const json = await run(['call', 'nosuch', 'book_table', '--wait', '--json'], h.cliEnv);
    assert.equal(json.code, EXIT.CALL_FAILED);
    const obj = JSON.parse(json.stdout);
    assert.equal(obj.error, 'UnknownServer');
    assert.match(obj.message, /unknown MCP server "nosuch"/);
    assert.equal(obj.server, 'nosuch');
    assert.equal(obj.tool, 'book_table');
    assert.match(obj.workflowId, /^mcp-nosuch-book_table-/);

    const unknownTool = await run(['call', 'fx', 'no_such_tool', '--wait'], h.cliEnv);
    assert.equal(unknownTool.code, EXIT.CALL_FAILED);
    assert.match(unknownTool.stderr, /\(fx\/no_such_tool\) failed: UnknownTool: server "fx" has no tool "no_such_tool"; its tools: .*echo/);

    const ghost = await run(['call', 'ghost', 'anything', '--wait', '--workflow-id', 'cli-ghost'], h.cliEnv);
    assert.equal(ghost.code, EXIT.CALL_FAILED);
    assert.match(ghost.stderr, /\(ghost\/anything\) failed: McpServerUnavailable: .*\/nonexistent\/bin\/mcp-server-ghost.*not found/);
    // `result` of the same call says the same.
    const result = await run(['result', 'cli-ghost'], h.cliEnv);
    assert.equal(result.code, EXIT.CALL_FAILED);
    assert.match(result.stderr, /waiting for the result of cli-ghost/);
    assert.match(result.stderr, /McpServerUnavailable/);

    const badInput = await run(['call', 'fx', 'echo', '--expires-in', '4 parsecs'], h.cliEnv);
    assert.equal(badInput.code, EXIT.USAGE);
    assert.match(badInput.stderr, /--expires-in must be a Temporal Duration: .*, got "4 parsecs"/);
    const badArgs = await run(['call', 'fx', 'echo', '--args', '[1]'], h.cliEnv);
    assert.equal(badArgs.code, EXIT.USAGE);
    assert.match(badArgs.stderr, /--args must be a JSON object/);

    const unreachable = await run(['pending', 'x'], { ...h.cliEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(unreachable.code, EXIT.TEMPORAL_UNREACHABLE);
    assert.match(unreachable.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
    const missingJson = await run(['result', 'no-such-workflow', '--json'], h.cliEnv);
    assert.equal(missingJson.code, EXIT.REFUSED);
    assert.equal(JSON.parse(missingJson.stdout).error, 'UnknownWorkflow');
  });

  it("pending <id> and answer a few seconds after the last worker died exit 4 (no worker), naming the task queue and what to do, never Temporal's raw FAILED_PRECONDITION", async () => {
    const worker = h.workers.find((w) => w.child.exitCode === null) ?? (await h.startWorkerProcess());
    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-worker-gone'], h.cliEnv)).code, 0);
    const waited = await run(['pending', 'cli-worker-gone', '--wait', '60', '--json'], h.cliEnv);
    assert.equal(waited.code, 0, waited.stderr);
    const id = JSON.parse(waited.stdout)[0].pending[0].request.id as string;
    // Killed (a crash, `docker kill`): Temporal then answers a query with "9 FAILED_PRECONDITION: no poller seen for task
    // queue recently" (after its own wait), which the CLI printed raw, with exit 6.
    await worker.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 5_000));

    const pending = await run(['pending', 'cli-worker-gone'], h.cliEnv);
    assert.equal(pending.code, EXIT.NO_WORKER, pending.stderr);
    assert.doesNotMatch(pending.stderr, /ServiceError|FAILED_PRECONDITION/);
    assert.match(pending.stderr, new RegExp(`could not list its pending requests: .*no worker polls task queue "${h.cliEnv.DURABLE_MCP_TASK_QUEUE}"`));
    assert.match(pending.stderr, /start one: `npm start` in a clone, or `npx durable-mcp worker`/);
    const json = await run(['pending', 'cli-worker-gone', '--json'], h.cliEnv);
    assert.equal(json.code, EXIT.NO_WORKER);
    assert.deepEqual((({ error, workflowId, taskQueue }) => ({ error, workflowId, taskQueue }))(JSON.parse(json.stdout)), {
      error: 'NoWorker',
      workflowId: 'cli-worker-gone',
      taskQueue: h.cliEnv.DURABLE_MCP_TASK_QUEUE,
    });
    const answer = await run(['answer', 'cli-worker-gone', id, '--data', '{"name":"Ada"}'], h.cliEnv);
    assert.equal(answer.code, EXIT.NO_WORKER, answer.stderr);
    assert.match(answer.stderr, /could not take the answer: .*send it as a durable signal \(`--signal`\)/);

    // The same id again: refused (5), naming what to do; a namespace the server does not have: Temporal refuses (3).
    const again = await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-worker-gone', '--json'], h.cliEnv);
    assert.equal(again.code, EXIT.REFUSED, again.stderr);
    assert.equal(JSON.parse(again.stdout).error, 'WorkflowAlreadyStarted');
    assert.match(again.stderr, /a workflow with id "cli-worker-gone" is already running: give another --workflow-id/);
    const namespace = await run(['pending', 'cli-worker-gone'], { ...h.cliEnv, TEMPORAL_NAMESPACE: 'no-such-namespace' });
    assert.equal(namespace.code, EXIT.TEMPORAL_UNREACHABLE, namespace.stderr);
    assert.match(namespace.stderr, /has no namespace "no-such-namespace": .*Set TEMPORAL_NAMESPACE/);
  });

  it('from a real server: a signal to a closed run is WorkflowClosed, a payload over the size limit TemporalRejected (exit 5 each, saying what to do)', async () => {
    const taskQueue = h.cliEnv.DURABLE_MCP_TASK_QUEUE!;
    const closed = await h.env.client.workflow.start('noSuchWorkflow', { taskQueue, workflowId: `cli-closed-${Date.now()}`, args: [] });
    await closed.terminate('test');
    const signalled = await closed.signal('answer', { id: 'c1.r1', ok: true }).then(
      () => undefined,
      (err: unknown) => err,
    );
    const asClosed = fromTemporalError(signalled, { workflowId: closed.workflowId });
    assert.equal(asClosed?.code, 'WorkflowClosed', String(signalled));
    assert.equal(EXIT_OF[asClosed.code], EXIT.REFUSED);
    assert.match(asClosed.message, new RegExp(`workflow "${closed.workflowId}" has closed .*npx durable-mcp result ${closed.workflowId}`));
    // 3 MB of arguments: Temporal's blob size limit (2 MB a payload by default) refuses the start, and the CLI says so.
    const file = join(tempDir('cli-big-'), 'args.json');
    writeFileSync(file, JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }));
    const big = await run(['call', 'fx', 'echo', '--args', `@${file}`, '--json'], h.cliEnv);
    assert.equal(big.code, EXIT.REFUSED, big.stderr);
    assert.equal(JSON.parse(big.stdout).error, 'TemporalRejected');
    assert.match(big.stderr, /refused the request as invalid .*a payload is larger than Temporal takes .*send less/);
    assert.doesNotMatch(big.stderr, /ServiceError/);
  });
});

/** A gRPC error as @grpc/grpc-js gives it (the client's ServiceError carries it as its cause). */
function grpc(code: number, text: string): Error {
  return Object.assign(new Error(text), { code, details: text.replace(/^\d+ [A-Z_]+: /, '') });
}

describe('every Temporal error a person can meet has its documented exit code and says what to do (no server)', () => {
  const documented = new Map(
    [...readFileSync(join(cli, '..', '..', '..', '..', 'docs', 'cli.md'), 'utf8').matchAll(/^\| (\d) \| (.*) \|$/gm)].map((m) => [Number(m[1]), m[2]]),
  );
  // [what happened, the error the SDK throws, its exit code, the words docs/cli.md uses for it, what the message says to do]
  const cases: Array<[string, Error, number, RegExp, RegExp]> = [
    [
      'connection refused',
      new ServiceError('Failed to query Workflow', { cause: grpc(14, '14 UNAVAILABLE: No connection established') }),
      3,
      /UNAVAILABLE/,
      /TEMPORAL_ADDRESS/,
    ],
    [
      'deadline exceeded',
      new ServiceError('Failed to query Workflow', { cause: grpc(4, '4 DEADLINE_EXCEEDED: Deadline exceeded') }),
      3,
      /DEADLINE_EXCEEDED/,
      /Try again/,
    ],
    [
      'unauthenticated',
      new ServiceError('Failed to start Workflow', { cause: grpc(16, '16 UNAUTHENTICATED: invalid API key') }),
      3,
      /UNAUTHENTICATED/,
      /TEMPORAL_API_KEY/,
    ],
    [
      'permission denied',
      new ServiceError('Failed to start Workflow', { cause: grpc(7, '7 PERMISSION_DENIED: Request unauthorized') }),
      3,
      /PERMISSION_DENIED/,
      /TEMPORAL_TLS_CLIENT_CERT_PATH/,
    ],
    ['namespace not found', new NamespaceNotFoundError('nope'), 3, /unknown namespace/, /TEMPORAL_NAMESPACE/],
    ['workflow not found', new WorkflowNotFoundError('workflow not found', 'wf-1', undefined), 5, /no such workflow/, /no workflow with id "wf-1"/],
    [
      'no poller',
      new ServiceError('Failed to query Workflow', { cause: grpc(9, '9 FAILED_PRECONDITION: no poller seen for task queue recently, worker may be down') }),
      4,
      /no poller seen for task queue recently/,
      /start one: `npm start` in a clone, or `npx durable-mcp worker`/i,
    ],
    [
      'already started',
      new WorkflowExecutionAlreadyStartedError('Workflow execution already started', 'wf-1', 'mcpToolCall'),
      5,
      /already running/,
      /give another --workflow-id/,
    ],
    ['not a durable-mcp workflow', new QueryNotRegisteredError('unknown queryType pendingDetails', 3), 5, /not durable-mcp's/, /not a durable-mcp workflow/],
    ['workflow task failing', workflowTaskFailing('wf-1', 'q', 'list its pending requests', 3, 'no key'), 4, /workflow task fails/, /until that is fixed/],
    [
      'a query while the workflow task fails',
      new ServiceError('Failed to query Workflow', {
        cause: grpc(9, '9 FAILED_PRECONDITION: Unable to query workflow due to Workflow Task in failed state.'),
      }),
      4,
      /Workflow Task in failed state/,
      /its log says why .*workflow describe/,
    ],
    [
      'a signal to a closed run',
      new ServiceError('Failed to signal Workflow', { cause: grpc(5, '5 NOT_FOUND: workflow execution already completed') }),
      5,
      /already completed/,
      /has closed .*npx durable-mcp result/,
    ],
    [
      'a rate limit',
      new ServiceError('Failed to start Workflow', { cause: grpc(8, '8 RESOURCE_EXHAUSTED: namespace rate limit exceeded') }),
      3,
      /RESOURCE_EXHAUSTED/,
      /Try again in a moment/,
    ],
    [
      'a payload over the size limit',
      new ServiceError('Failed to start Workflow', { cause: grpc(3, '3 INVALID_ARGUMENT: Blob data size exceeds limit.') }),
      5,
      /INVALID_ARGUMENT/,
      /larger than Temporal takes .*send less/,
    ],
    ['a cancelled request', new ServiceError('Failed to query Workflow', { cause: grpc(1, '1 CANCELLED: Cancelled on client') }), 3, /CANCELLED/, /Try again/],
  ];
  for (const [what, err, exit, docs, todo] of cases) {
    it(`${what}: exit ${exit}`, () => {
      const known = fromTemporalError(err, { address: '127.0.0.1:7233', namespace: 'default' });
      assert.ok(known, `${what} is a client error`);
      assert.equal(EXIT_OF[known.code], exit, `${what}: ${known.code}`);
      assert.match(documented.get(exit) ?? '', docs, `docs/cli.md says exit ${exit} for ${what}`);
      assert.match(known.message, todo);
    });
  }
});

describe("a setting's problem is a usage error (exit 2, one line naming the variable), found before anything starts", () => {
  const nothingListens = { TEMPORAL_ADDRESS: '127.0.0.1:9' };
  const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['an unknown model provider', ['worker', '--agent'], { DURABLE_MCP_MODEL_PROVIDER: 'bogus' }, /DURABLE_MCP_MODEL_PROVIDER must be one of .*got "bogus"/],
    [
      'openai without its key',
      ['worker', '--agent'],
      { DURABLE_MCP_MODEL_PROVIDER: 'openai', OPENAI_API_KEY: '' },
      /DURABLE_MCP_MODEL_PROVIDER=openai needs OPENAI_API_KEY/,
    ],
    ['a base URL holding credentials', ['worker', '--agent'], { DURABLE_MCP_MODEL_BASE_URL: 'http://user:pw@127.0.0.1:9/v1' }, /must not hold credentials/],
  ];
  for (const [what, args, env, says] of cases) {
    it(what, async () => {
      const dir = tempDir('cli-config-');
      const config = join(dir, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: {} }));
      const r = await run([...args, '--mcp-config', config], { ...nothingListens, ...env });
      assert.equal(r.code, EXIT.USAGE, r.stderr);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, says);
      assert.doesNotMatch(lines[0]!, /pw@|Error:/);
    });
  }
});
