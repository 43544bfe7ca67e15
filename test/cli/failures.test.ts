import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { fixtureServerPath } from '../fixtures/paths.js';
import { spawnNode, type SpawnedProcess } from '../helpers/processes.js';
import { createLocalEnv, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = resolve(here, '..', '..', 'src', 'cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}
function run(args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  const start = Date.now();
  return new Promise((res) => {
    const child = execFile(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: Date.now() - start });
    });
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

/** The documented exit codes (README: "Exit codes"). */
const EXIT = { CALL_FAILED: 1, USAGE: 2, TEMPORAL_UNREACHABLE: 3, NO_WORKER: 4, REFUSED: 5 };

describe('the CLI says why things fail, with documented exit codes (dev server, a worker process, real MCP servers)', () => {
  let env: TestWorkflowEnvironment;
  let cliEnv: Record<string, string>;
  let configPath: string;
  const workers: SpawnedProcess[] = [];
  const startWorkerProcess = async () => {
    const w = spawnNode([cli, 'worker', '--mcp-config', configPath], cliEnv);
    workers.push(w);
    await w.waitFor(/task queue/, 60_000);
    return w;
  };
  before(async () => {
    env = await createLocalEnv({ searchAttributes: true });
    const dir = tempDir('cli-failures-');
    configPath = join(dir, 'mcp.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        mcpServers: {
          fx: { command: [process.execPath, fixtureServerPath], env: { FIXTURE_LOG: join(dir, 'fx.jsonl') } },
          ghost: { command: ['/nonexistent/bin/mcp-server-ghost'] },
        },
      }),
    );
    cliEnv = { TEMPORAL_ADDRESS: env.address, DURABLE_MCP_TASK_QUEUE: uniqueTaskQueue('cli-failures') };
  });
  after(async () => {
    for (const w of workers) await w.kill('SIGKILL');
    await env?.teardown();
  });

  it('a failed call prints its cause (type, message, server, tool) and exits 1; --json prints an error object', async () => {
    await startWorkerProcess();
    const health = await run(['health', '--json'], cliEnv);
    assert.equal(health.code, 0, health.stderr);
    assert.deepEqual(JSON.parse(health.stdout), { taskQueue: cliEnv.DURABLE_MCP_TASK_QUEUE, workerPolls: true });
    const noQueue = await run(['health', '--task-queue', 'nobody-polls-this'], cliEnv);
    assert.equal(noQueue.code, EXIT.NO_WORKER);
    // The bundled Temporal CLI, through the passthrough, against the same server.
    const listed = await run(['temporal', 'operator', 'search-attribute', 'list', '--address', env.address], cliEnv);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /DurableMcpAwaitingInput/);
    const unknownServer = await run(['call', 'nosuch', 'book_table', '--wait'], cliEnv);
    assert.equal(unknownServer.code, EXIT.CALL_FAILED, unknownServer.stderr);
    assert.match(unknownServer.stderr, /\(nosuch\/book_table\) failed: UnknownServer: unknown MCP server "nosuch"; configured servers: fx, ghost/);

    const json = await run(['call', 'nosuch', 'book_table', '--wait', '--json'], cliEnv);
    assert.equal(json.code, EXIT.CALL_FAILED);
    const obj = JSON.parse(json.stdout);
    assert.equal(obj.error, 'UnknownServer');
    assert.match(obj.message, /unknown MCP server "nosuch"/);
    assert.equal(obj.server, 'nosuch');
    assert.equal(obj.tool, 'book_table');
    assert.match(obj.workflowId, /^mcp-nosuch-book_table-/);

    const unknownTool = await run(['call', 'fx', 'no_such_tool', '--wait'], cliEnv);
    assert.equal(unknownTool.code, EXIT.CALL_FAILED);
    assert.match(unknownTool.stderr, /\(fx\/no_such_tool\) failed: UnknownTool: server "fx" has no tool "no_such_tool"; its tools: .*echo/);

    const ghost = await run(['call', 'ghost', 'anything', '--wait', '--workflow-id', 'cli-ghost'], cliEnv);
    assert.equal(ghost.code, EXIT.CALL_FAILED);
    assert.match(ghost.stderr, /\(ghost\/anything\) failed: McpServerUnavailable: .*\/nonexistent\/bin\/mcp-server-ghost.*not found/);
    // `result` of the same call says the same.
    const result = await run(['result', 'cli-ghost'], cliEnv);
    assert.equal(result.code, EXIT.CALL_FAILED);
    assert.match(result.stderr, /waiting for the result of cli-ghost/);
    assert.match(result.stderr, /McpServerUnavailable/);

    const badInput = await run(['call', 'fx', 'echo', '--expires-in', '4 parsecs'], cliEnv);
    assert.equal(badInput.code, EXIT.USAGE);
    assert.match(badInput.stderr, /--expires-in must be a Temporal Duration: .*, got "4 parsecs"/);
    const badArgs = await run(['call', 'fx', 'echo', '--args', '[1]'], cliEnv);
    assert.equal(badArgs.code, EXIT.USAGE);
    assert.match(badArgs.stderr, /--args must be a JSON object/);

    const unreachable = await run(['pending', 'x'], { ...cliEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(unreachable.code, EXIT.TEMPORAL_UNREACHABLE);
    assert.match(unreachable.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
    const missingJson = await run(['result', 'no-such-workflow', '--json'], cliEnv);
    assert.equal(missingJson.code, EXIT.REFUSED);
    assert.equal(JSON.parse(missingJson.stdout).error, 'UnknownWorkflow');
  });

  it('--args @file, --data @file with a 200 KiB answer, --data - from stdin, a refused answer exits 5, and --data for a URL-mode request is bad usage', async () => {
    const dir = tempDir('cli-data-');
    writeFileSync(join(dir, 'args.json'), JSON.stringify({ text: 'from a file' }));
    const echo = await run(['call', 'fx', 'echo', '--args', `@${join(dir, 'args.json')}`, '--wait'], cliEnv);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout.trim(), 'echo: from a file');

    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-big'], cliEnv)).code, 0);
    const waited = await run(['pending', 'cli-big', '--wait', '60', '--json'], cliEnv);
    const id = JSON.parse(waited.stdout)[0].pending[0].request.id as string;
    const refused = await run(['answer', 'cli-big', id, '--data', '{"name":42}'], cliEnv);
    assert.equal(refused.code, EXIT.REFUSED);
    assert.match(refused.stderr, /field "name"/);
    const name = 'x'.repeat(200 * 1024);
    writeFileSync(join(dir, 'big.json'), JSON.stringify({ name }));
    const big = await run(['answer', 'cli-big', id, '--data', `@${join(dir, 'big.json')}`], cliEnv);
    assert.equal(big.code, 0, big.stderr);
    const result = await run(['result', 'cli-big', '--json'], cliEnv);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).output, `hello ${name}`);

    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-stdin'], cliEnv)).code, 0);
    const id2 = JSON.parse((await run(['pending', 'cli-stdin', '--wait', '60', '--json'], cliEnv)).stdout)[0].pending[0].request.id as string;
    const fromStdin = await run(['answer', 'cli-stdin', id2, '--data', '-', '--json'], cliEnv, '{"name":"Stdin"}');
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.deepEqual(JSON.parse(fromStdin.stdout), { id: id2, action: 'accept' });
    assert.equal((await run(['result', 'cli-stdin'], cliEnv)).stdout.trim(), 'hello Stdin');

    assert.equal((await run(['call', 'fx', 'ask_url', '--workflow-id', 'cli-url'], cliEnv)).code, 0);
    const id3 = JSON.parse((await run(['pending', 'cli-url', '--wait', '60', '--json'], cliEnv)).stdout)[0].pending[0].request.id as string;
    const urlData = await run(['answer', 'cli-url', id3, '--data', '{"x":1}'], cliEnv);
    assert.equal(urlData.code, EXIT.USAGE);
    assert.match(urlData.stderr, /URL-mode \(authorization\) request: it takes no --data/);
    assert.equal((await run(['answer', 'cli-url', id3], cliEnv)).code, 0);
  });

  it('with no worker, pending and answer fail fast naming the cause; --signal answers anyway and the call completes once a worker starts', async () => {
    const worker = workers.at(-1) ?? (await startWorkerProcess());
    assert.equal((await run(['call', 'fx', 'ask_name', '--workflow-id', 'cli-noworker'], cliEnv)).code, 0);
    const id = JSON.parse((await run(['pending', 'cli-noworker', '--wait', '60', '--json'], cliEnv)).stdout)[0].pending[0].request.id as string;
    await worker.kill('SIGTERM');

    const pending = await run(['pending', 'cli-noworker'], cliEnv);
    assert.equal(pending.code, EXIT.NO_WORKER, pending.stderr);
    assert.match(pending.stderr, new RegExp(`no worker polls task queue "${cliEnv.DURABLE_MCP_TASK_QUEUE}"`));
    const all = await run(['pending', '--json'], cliEnv);
    assert.equal(all.code, 0, all.stderr);
    const row = (JSON.parse(all.stdout) as Array<{ workflowId: string; unreachable?: string }>).find((r) => r.workflowId === 'cli-noworker');
    assert.ok(row?.unreachable, `listed as unreachable: ${all.stdout}`);
    assert.match(row.unreachable, /no worker/);
    const answer = await run(['decline', 'cli-noworker', id], cliEnv);
    assert.equal(answer.code, EXIT.NO_WORKER);
    assert.match(answer.stderr, /could not take the answer: .*no worker.*--signal/);
    console.log(`# measured: pending with no worker returned in ${pending.ms} ms, pending (all) in ${all.ms} ms, decline in ${answer.ms} ms`);

    const signalled = await run(['answer', 'cli-noworker', id, '--data', '{"name":"Signal"}', '--signal'], cliEnv);
    assert.equal(signalled.code, 0, signalled.stderr);
    assert.match(signalled.stdout, /sent as a signal/);
    await startWorkerProcess();
    const result = await run(['result', 'cli-noworker'], cliEnv);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'hello Signal');
  });
});
