/**
 * Issue 43, item 2: the CLI around agents, on a real dev server. `agent` against a task queue with no worker, and
 * against the CLI's own worker (the prebuilt bundle, no `mcpAgent`), fails with exit 4 saying what to do, never hangs;
 * a workflow whose task fails makes `pending`, `result` and `answer` exit 4 naming the failure, never Temporal's raw
 * FAILED_PRECONDITION. With a worker that runs `mcpAgent` (test/ai-sdk's worker process and scripted model, the fixture
 * MCP server over stdio): the follow output shows the proposal and commands that work when pasted (an approval with no
 * `--data`, a form with a valid `--data`), `result` names what waits for a person, and prints the agent's text for an
 * approved run and a declined one; a terminated agent's failure says "agent".
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { cli, cliHarness, EXIT, run } from '../helpers/cli.js';

const agentWorkerPath = fileURLToPath(new URL('../ai-sdk/agent-worker-process.js', import.meta.url));

/** The words of a command line as a POSIX shell reads them (bare words and single quotes, as the CLI prints them). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      assert.ok(end > i, `an unclosed quote in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '\\') {
      word = (word ?? '') + line[++i];
    } else if (ch === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The CLI arguments of a printed `npx durable-mcp …` line (what follows `label: `). */
function pasted(line: string): string[] {
  const words = shellWords(line.slice(line.indexOf('npx durable-mcp ')));
  assert.deepEqual(words.slice(0, 2), ['npx', 'durable-mcp'], line);
  return words.slice(2);
}

/** `agent` with the scripted model on the fixture server's ask_name, which needs an approval first, then asks a name. */
const askNameAgent = (prompt: string, workflowId: string): string[] => [
  'agent',
  'scripted',
  '--server',
  'fx',
  '--tools',
  'fx_ask_name',
  '--needs-approval',
  '--prompt',
  prompt,
  '--workflow-id',
  workflowId,
];

describe('the CLI around agents (real dev server, the CLI worker, an mcpAgent worker process, fixture server over stdio)', () => {
  const h = cliHarness();
  const agentQueue = `agent-${randomUUID().slice(0, 8)}`;
  const agentEnv = () => ({ ...h.cliEnv, DURABLE_MCP_TASK_QUEUE: agentQueue });
  let agentWorker: SpawnedProcess;

  before(async () => {
    await h.startWorkerProcess();
    agentWorker = spawnNode([agentWorkerPath], { TEMPORAL_ADDRESS: h.env.address, TASK_QUEUE: agentQueue, MCP_CONFIG: h.configPath });
    h.workers.push(agentWorker);
    await agentWorker.waitFor(/agent worker: ready/, 120_000);
  });

  it('agent with no worker on the task queue exits 4 at once and starts nothing', async () => {
    const env = { ...h.cliEnv, DURABLE_MCP_TASK_QUEUE: `nobody-${randomUUID().slice(0, 8)}` };
    const r = await run(['agent', 'scripted', '--server', 'fx', '--prompt', 'hi', '--workflow-id', 'cli-agent-nobody'], env);
    assert.equal(r.code, EXIT.NO_WORKER, r.stderr);
    assert.match(r.stderr, /no worker polls task queue "nobody-[0-9a-f]+": the agent was not started\. Start one that runs mcpAgent/);
    console.log(`# measured: agent with no worker exited 4 in ${r.ms} ms (process start included)`);
    const result = await run(['result', 'cli-agent-nobody'], env);
    assert.equal(result.code, EXIT.REFUSED, 'nothing was started');
  });

  it('agent against a worker without mcpAgent exits 4 saying so and what to do, terminates what it started, and never hangs', async () => {
    const r = await run(['agent', 'scripted', '--server', 'fx', '--prompt', 'hi', '--workflow-id', 'cli-agent-no-mcpagent', '--json'], h.cliEnv);
    assert.equal(r.code, EXIT.NO_WORKER, r.stderr);
    console.log(`# measured: agent against a worker without mcpAgent exited 4 in ${r.ms} ms (process start included)`);
    const error = JSON.parse(r.stdout);
    assert.equal(error.error, 'WorkflowTaskFailing');
    assert.equal(error.taskQueue, h.cliEnv.DURABLE_MCP_TASK_QUEUE);
    assert.match(
      r.stderr,
      new RegExp(
        `The worker on task queue "${h.cliEnv.DURABLE_MCP_TASK_QUEUE}" does not run the workflow mcpAgent: start a worker that does: ` +
          '`npx durable-mcp dev`, or `npx durable-mcp worker --agent`, or export mcpAgent from your workflows module',
      ),
    );
    assert.match(r.stderr, /The workflow was terminated \(nothing ran\)/);
    assert.doesNotMatch(r.stderr, /ServiceError|TypeError/);
    // `result` of that run: the agent's failure says "agent", not "?/?".
    const result = await run(['result', 'cli-agent-no-mcpagent'], h.cliEnv);
    assert.equal(result.code, EXIT.CALL_FAILED, result.stderr);
    assert.match(result.stderr, /durable-mcp: agent "cli-agent-no-mcpagent" failed: Terminated: /);
    assert.doesNotMatch(result.stderr, /\?\/\?/);
  });

  it("a workflow whose task fails: pending, result and answer exit 4 naming the failure, never Temporal's raw FAILED_PRECONDITION", async () => {
    const id = `cli-task-failing-${randomUUID().slice(0, 8)}`;
    await h.env.client.workflow.start('noSuchWorkflow', { taskQueue: h.cliEnv.DURABLE_MCP_TASK_QUEUE!, workflowId: id, args: [] });
    // Once its first task has failed, Temporal refuses a query at once ("Workflow Task in failed state"), which `pending`
    // printed raw (exit 6), and `result` waited forever.
    for (let attempt = 0; attempt < 2;) {
      await new Promise((r) => setTimeout(r, 200));
      const d = await h.env.client.workflowService.describeWorkflowExecution({ namespace: 'default', execution: { workflowId: id } });
      attempt = d.pendingWorkflowTask?.attempt ?? 0;
    }
    const failing = new RegExp(
      `its workflow task fails \\(attempt \\d+\\): .*no such function is exported by the workflow bundle\\. The worker on task queue ` +
        `"${h.cliEnv.DURABLE_MCP_TASK_QUEUE}" does not run the workflow noSuchWorkflow`,
    );
    for (const args of [
      ['pending', id],
      ['result', id],
      ['answer', id, 'c1.r1', '--data', '{"name":"Ada"}'],
    ]) {
      const r = await run(args, h.cliEnv);
      assert.equal(r.code, EXIT.NO_WORKER, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, failing, args[0]);
      assert.doesNotMatch(r.stderr, /ServiceError|Unable to query workflow/, args[0]);
    }
    for (const args of [
      ['pending', id, '--json'],
      ['result', id, '--json'],
    ]) {
      const json = await run(args, h.cliEnv);
      assert.equal(json.code, EXIT.NO_WORKER, `${args.join(' ')}: ${json.stderr}`);
      assert.equal(JSON.parse(json.stdout).error, 'WorkflowTaskFailing', args.join(' '));
    }
    await h.env.client.workflow.getHandle(id).terminate('test done');
  });

  it('follow shows the proposal and commands that work when pasted: the approval without --data, the form with a valid --data', async () => {
    const agent = spawnNode([cli, ...askNameAgent('Greet the guest', 'cli-agent-follow')], agentEnv());
    h.workers.push(agent);
    await agent.waitFor(/ {4}decline: npx durable-mcp decline .*\n/);
    const out = agent.output();
    const approve = /^ {4}approve: npx durable-mcp answer .*$/m.exec(out)![0];
    // What the model proposed: the server/tool, and the arguments the tool will run with.
    assert.match(out, /^cli-agent-follow {2}c1\.approve\.\S+ {2}input {2}fx\/ask_name \(step fx_ask_name\)$/m);
    assert.match(out, /^ {4}arguments: \{\}$/m);
    assert.match(out, /^ {4}decline: npx durable-mcp decline cli-agent-follow \S+$/m);
    assert.doesNotMatch(approve, /--data/);
    const approved = await run(pasted(approve.trim()), agentEnv());
    assert.equal(approved.code, 0, approved.stderr);
    // The tool then asks a name: a form, with an example answer valid for its schema.
    const form = await agent.waitFor(/ {4}answer \(with your values\): npx durable-mcp answer .*\n/);
    assert.match(form, / --data '\{"name":"text"\}'\n$/);
    assert.match(agent.output(), /^ {4}fields: "name"\*:string$/m);
    const answered = await run(pasted(form.trim()), agentEnv());
    assert.equal(answered.code, 0, answered.stderr);
    assert.equal(await agent.exited, 0, agent.output());
    assert.equal(agent.stdout().trim(), 'The tool said: hello text');
    // `result` of the approved run prints the agent's text; --json its whole result as before.
    const result = await run(['result', 'cli-agent-follow'], agentEnv());
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'The tool said: hello text');
    const json = await run(['result', 'cli-agent-follow', '--json'], agentEnv());
    assert.equal(JSON.parse(json.stdout).text, 'The tool said: hello text');
  });

  it("result on an agent that waits names the request and the command that answers it (stderr), then prints a declined run's text", async () => {
    const started = await run([...askNameAgent('Greet', 'cli-agent-wait'), '--no-follow'], agentEnv());
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout.trim(), 'cli-agent-wait');
    const result = spawnNode([cli, 'result', 'cli-agent-wait'], agentEnv());
    h.workers.push(result);
    await result.waitFor(/it waits for a person:\ncli-agent-wait {2}c1\.approve\.\S+ {2}input {2}fx\/ask_name \(step fx_ask_name\)\n/);
    const decline = await result.waitFor(/ {4}decline: npx durable-mcp decline .*\n/);
    assert.match(result.output(), / {4}approve: npx durable-mcp answer cli-agent-wait \S+\n/);
    const declined = await run(pasted(decline.trim()), agentEnv());
    assert.equal(declined.code, 0, declined.stderr);
    assert.equal(await result.exited, 0, result.output());
    assert.match(result.stdout().trim(), /^The tool said: error: .*declined/);
    assert.doesNotMatch(result.stdout(), /waits for a person|npx durable-mcp/, 'stdout is the result only');
  });

  // Last: it replaces the mcpAgent worker with the CLI's own.
  it("follow exits 4 when the agent's worker is replaced by one without mcpAgent mid-run, instead of waiting forever", async () => {
    const agent = spawnNode([cli, ...askNameAgent('Greet', 'cli-agent-replaced')], agentEnv());
    h.workers.push(agent);
    await agent.waitFor(/ {4}decline: npx durable-mcp decline .*\n/);
    await agentWorker.kill('SIGKILL');
    const plain = spawnNode([cli, 'worker', '--mcp-config', h.configPath], agentEnv());
    h.workers.push(plain);
    await plain.waitFor(/task queue/, 60_000);
    // Bounded: before the change, follow waited forever.
    await agent.waitFor(/could not go on with the agent/, 120_000);
    assert.equal(await agent.exited, EXIT.NO_WORKER, agent.output());
    assert.match(
      agent.output(),
      new RegExp(
        'could not go on with the agent: its workflow task fails \\(attempt \\d+\\): .*The worker on task queue ' +
          `"${agentQueue}" does not run the workflow mcpAgent: start a worker that does`,
      ),
    );
  });
});
