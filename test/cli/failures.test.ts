import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliHarness, EXIT, run } from '../helpers/cli.js';

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
});
