/**
 * A newcomer's mistakes, through the real CLI against a dev server and a real worker process: each is one line on stderr
 * with the documented exit code, `--json` prints one JSON object and no help, `call` fails at once on what its first
 * attempt shows, and the worker logs a caller's mistake on one line (type, server, tool, message) with no stack trace.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { awaitingInputKey } from '../../src/workflows/visibility.js';
import { fixtureServerPath } from '../fixtures/paths.js';
import { createLocalEnv, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { cli, EXIT, run, type Run } from '../helpers/cli.js';

/** The lines a command wrote on stderr. */
const lines = (r: Run) => r.stderr.split('\n').filter((l) => l.trim() !== '');

/** One line on stderr, starting `durable-mcp: `, matching `pattern`. */
function oneLine(r: Run, pattern: RegExp): void {
  assert.equal(lines(r).length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines(r)[0], /^durable-mcp: /);
  assert.match(lines(r)[0], pattern);
}

describe("a newcomer's mistakes: one line each, with the documented exit code (real CLI, dev server, worker process)", () => {
  let env: TestWorkflowEnvironment;
  let worker: SpawnedProcess;
  let cliEnv: Record<string, string>;
  before(async () => {
    env = await createLocalEnv({ searchAttributes: true });
    const dir = tempDir('cli-mistakes-');
    const config = join(dir, 'mcp.json');
    const fx = { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fx.jsonl') } };
    writeFileSync(config, JSON.stringify({ mcpServers: { fx, narrow: { ...fx, tools: ['echo'] } } }));
    cliEnv = { TEMPORAL_ADDRESS: env.address, DURABLE_MCP_TASK_QUEUE: uniqueTaskQueue('cli-mistakes') };
    worker = spawnNode([cli, 'worker', '--mcp-config', config], cliEnv);
    await worker.waitFor(/task queue/, 60_000);
    // The fixture server started once, as a newcomer's first call starts it: `call` without --wait waits about 2 s for
    // the first attempt, and a cold start of the server's process alone can take longer on a loaded machine (then the
    // mistake shows at `result`, which the last case below covers).
    const warm = await run(['call', 'fx', 'echo', '--args', '{"text":"warm"}', '--wait'], cliEnv);
    assert.equal(warm.code, 0, warm.stderr);
  });
  after(async () => {
    await worker?.kill('SIGKILL');
    await env?.teardown();
  });

  it('call: an unknown server, an unknown tool, a refused tool and rejected arguments exit 1 at once, without --wait', async () => {
    // Up to 30 s for the first attempt (2 s by default): on a busy machine a failure can take longer to show, and `call`
    // returns as soon as it shows.
    const firstWait = ['--first-wait', '30'];
    const unknownServer = await run(['call', 'nosuch', 'echo', ...firstWait], cliEnv);
    assert.equal(unknownServer.code, EXIT.CALL_FAILED);
    oneLine(unknownServer, /\(nosuch\/echo\) failed: UnknownServer: unknown MCP server "nosuch"; configured servers: fx, narrow/);

    const unknownTool = await run(['call', 'fx', 'no_such_tool', ...firstWait], cliEnv);
    assert.equal(unknownTool.code, EXIT.CALL_FAILED);
    oneLine(unknownTool, /\(fx\/no_such_tool\) failed: UnknownTool: server "fx" has no tool "no_such_tool"; its tools: .*echo/);

    const refused = await run(['call', 'narrow', 'ask_name', ...firstWait], cliEnv);
    assert.equal(refused.code, EXIT.CALL_FAILED);
    oneLine(refused, /\(narrow\/ask_name\) failed: ToolNotAllowed: tool "ask_name" of server "narrow" is not in its tools allowlist \(echo\)/);

    const badArgs = await run(['call', 'fx', 'echo', '--args', '{"text":42}', ...firstWait], cliEnv);
    assert.equal(badArgs.code, EXIT.CALL_FAILED, badArgs.stderr);
    oneLine(badArgs, /fx\/echo|InvalidArguments/);

    const json = await run(['call', 'fx', 'no_such_tool', '--json', ...firstWait], cliEnv);
    assert.equal(json.code, EXIT.CALL_FAILED);
    assert.equal(JSON.parse(json.stdout).error, 'UnknownTool', 'stdout is one JSON object');

    // --no-wait-start is fire-and-forget: the workflow id at once, exit 0 (the mistake shows at `result`).
    const later = await run(['call', 'fx', 'no_such_tool', '--no-wait-start'], cliEnv);
    assert.equal(later.code, 0, later.stderr);
    assert.match(later.stdout.trim(), /^mcp-fx-no_such_tool-[0-9a-f]{8}$/);
    const result = await run(['result', later.stdout.trim()], cliEnv);
    assert.equal(result.code, EXIT.CALL_FAILED);
    assert.match(result.stderr, /UnknownTool/);

    // A call that waits for a person is started, and `call` returns as soon as it waits (exit 0, the id).
    const asks = await run(['call', 'fx', 'ask_name'], cliEnv);
    assert.equal(asks.code, 0, asks.stderr);
    assert.match(asks.stdout.trim(), /^mcp-fx-ask_name-/);
    assert.equal(asks.stderr, '');
    await env.client.workflow.getHandle(asks.stdout.trim()).terminate('done with it');
  });

  it("the worker's log has each caller's mistake on one line (type, server, tool, message), no stack trace", async () => {
    await worker.waitFor(
      /ToolNotAllowed \(server "narrow", tool "ask_name", workflow [^)]+\): tool "ask_name" of server "narrow" is not in its tools allowlist/,
    );
    const log = worker.output();
    assert.match(log, /UnknownServer \(server "nosuch", tool "echo", workflow mcp-nosuch-echo-[0-9a-f]{8}\): unknown MCP server "nosuch"/);
    assert.match(log, /UnknownTool \(server "fx", tool "no_such_tool", workflow mcp-fx-no_such_tool-[0-9a-f]{8}\): server "fx" has no tool "no_such_tool"/);
    assert.doesNotMatch(log, /Activity failed|Workflow failed/, 'no multi-line SDK entry for a mistake');
    assert.doesNotMatch(log, /^\s+at /m, 'no stack trace');
  });

  it('usage errors are one line naming the --help to read; with --json one JSON object and no help text', async () => {
    const bad = await run(['call', 'fx', 'echo', '--args', '{bad'], cliEnv);
    assert.equal(bad.code, EXIT.USAGE);
    oneLine(bad, /--args must be JSON: .*; see: npx durable-mcp call --help$/);
    assert.equal(bad.stdout, '');

    const badJson = await run(['call', 'fx', 'echo', '--args', '{bad', '--json'], cliEnv);
    assert.equal(badJson.code, EXIT.USAGE);
    assert.deepEqual(Object.keys(JSON.parse(badJson.stdout)), ['error', 'message'], 'stdout is one JSON object');
    assert.equal(JSON.parse(badJson.stdout).error, 'Usage');
    oneLine(badJson, /--args must be JSON/);
    assert.doesNotMatch(badJson.stdout + badJson.stderr, /Usage: durable-mcp|Options:/);

    oneLine(await run(['cal', 'fx', 'echo'], cliEnv), /^durable-mcp: unknown command 'cal' \(did you mean call\?\); see: npx durable-mcp --help$/);
    oneLine(await run(['call', 'fx'], cliEnv), /missing required argument 'tool'; see: npx durable-mcp call --help$/);
    oneLine(await run(['answer', 'a', 'b', '--bogus'], cliEnv), /unknown option '--bogus'; see: npx durable-mcp answer --help$/);
  });

  it('answer and pending with no worker to reach: exit 4, one line saying what is wrong and what to do', async () => {
    const nobody = { ...cliEnv, DURABLE_MCP_TASK_QUEUE: uniqueTaskQueue('nobody-polls') };
    const started = await run(['call', 'fx', 'ask_name', '--no-wait-start'], nobody);
    assert.equal(started.code, 0, started.stderr);
    const workflowId = started.stdout.trim();

    const answer = await run(['answer', workflowId, 'c1.1.0000000000', '--data', '{"name":"Ada"}'], nobody);
    assert.equal(answer.code, EXIT.NO_WORKER);
    oneLine(
      answer,
      /could not take the answer: no worker has polled its task queue recently.*start one: `npm start` in a clone, or `npx durable-mcp worker`.*--signal/,
    );

    const call = await run(['call', 'fx', 'ask_name'], nobody);
    assert.equal(call.code, 0, 'the call is started; it runs when a worker comes');
    oneLine(call, /no worker polls task queue "nobody-polls-[^"]+" yet: the call runs when one starts/);

    // A workflow awaiting input on a task queue nobody polls: `pending` lists it as unreachable and exits 4.
    await env.client.workflow.start('mcpToolCall', {
      taskQueue: nobody.DURABLE_MCP_TASK_QUEUE,
      workflowId: `awaiting-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name' }],
      typedSearchAttributes: [{ key: awaitingInputKey, value: true }],
    });
    const pending = await run(['pending'], cliEnv);
    assert.equal(pending.code, EXIT.NO_WORKER, pending.stderr);
    assert.match(pending.stdout, /\(unreachable: /);
    oneLine(pending, /no workflow awaiting input could be reached \(.*\); start a worker/);
  });
});
