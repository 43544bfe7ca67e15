/**
 * `durable-mcp dev` runs an agent with no key and no network: its worker registers `mcpAgent` with the scripted demo
 * model (no provider configured), the CLI's `agent` starts one on the demo server with `--needs-approval`, the approval
 * is in the inbox with the arguments the model proposed, and an answer there reaches the agent: approved, the tool runs
 * and the model's text says what it returned; declined, the decline reaches the model. A real dev (its own Temporal
 * server), the real demo MCP server, the inbox's own HTTP API.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temporal.js';

const cli = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
const KEY = 'sk-planted-dev-5b0f3e2d1c';

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

interface InboxRow {
  workflowId: string;
  workflowType: string;
  request: { id: string; data?: { schema?: { properties?: Record<string, { default?: unknown }> } } };
}

describe('dev runs an agent: the scripted demo model, an approval answered in the inbox', () => {
  let dev: SpawnedProcess;
  let inbox: string;
  let cliEnv: Record<string, string | undefined>;

  before(async () => {
    const dir = tempDir('dev-agent-');
    mkdirSync(join(dir, 'data'));
    const port = await freePort();
    // A key in the environment, but the demo model chosen: the key is read by nobody and printed nowhere.
    const env = {
      TEMPORAL_ADDRESS: undefined,
      MCP_CONFIG: undefined,
      DURABLE_MCP_ENCRYPTION_KEYS: undefined,
      DURABLE_MCP_MODEL_BASE_URL: undefined,
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: KEY,
      DURABLE_MCP_MODEL_PROVIDER: 'demo',
    };
    dev = spawnNode(
      [cli, 'dev', '--data-dir', join(dir, 'data'), '--port', String(port), '--ui-port', String(await freePort()), '--inbox-port', '0'],
      env,
      dir,
    );
    await dev.waitFor(/Ctrl-C stops everything/, 240_000);
    inbox = /^Inbox: +(http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(dev.output())![1]!;
    cliEnv = { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, DURABLE_MCP_ENCRYPTION_KEYS: undefined, DURABLE_MCP_TASK_QUEUE: undefined };
  });
  after(async () => {
    await dev?.kill('SIGINT');
  });

  /** Start an agent with the CLI, then wait for its approval in the inbox. */
  async function agentApproval(workflowId: string, prompt: string): Promise<InboxRow> {
    const started = await run(
      ['agent', 'demo', '--server', 'demo', '--prompt', prompt, '--needs-approval', '--no-follow', '--workflow-id', workflowId],
      cliEnv,
    );
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout.trim(), workflowId);
    for (let i = 0; i < 300; i++) {
      const { rows } = (await (await fetch(`${inbox}/api/requests`)).json()) as { rows: InboxRow[] };
      const row = rows.find((r) => r.workflowId === workflowId);
      if (row) return row;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no approval of ${workflowId} in the inbox:\n${dev.output().slice(-2000)}`);
  }

  async function answerInInbox(workflowId: string, answer: Record<string, unknown>): Promise<void> {
    const r = await fetch(`${inbox}/api/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowId, answer }),
    });
    assert.equal(r.status, 200, await r.text());
  }

  async function agentText(workflowId: string): Promise<string> {
    const r = await run(['result', workflowId, '--json'], cliEnv);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { text: string }).text;
  }

  it('the banner names the scripted demo model, and no key', () => {
    assert.match(
      dev.output(),
      /^Agents: +the workflow mcpAgent; model: scripted demo model \(not an LLM; for a real one set OPENAI_API_KEY, ANTHROPIC_API_KEY or DURABLE_MCP_MODEL_BASE_URL\)$/m,
    );
    assert.ok(!dev.output().includes(KEY));
  });

  it("approved in the inbox, with the model's proposed arguments: the tool runs and the agent says what it returned", async () => {
    const row = await agentApproval('dev-agent-approve', 'Add 2 and 40');
    assert.equal(row.workflowType, 'mcpAgent');
    assert.match(row.request.id, /^c1\.approve\./);
    const props = row.request.data!.schema!.properties!;
    assert.deepEqual([props.a!.default, props.b!.default], [2, 40]);
    await answerInInbox('dev-agent-approve', { id: row.request.id, ok: true, data: { a: 2, b: 40 } });
    assert.equal(await agentText('dev-agent-approve'), '[scripted demo model] I called demo_add with {"a":2,"b":40}; it returned {"sum":42}.');
  });

  it('declined in the inbox: the tool does not run, and the decline reaches the model', async () => {
    const row = await agentApproval('dev-agent-decline', 'Add 3 and 4');
    await answerInInbox('dev-agent-decline', { id: row.request.id, ok: false, reason: 'declined' });
    assert.match(
      await agentText('dev-agent-decline'),
      /^\[scripted demo model\] I called demo_add with \{"a":3,"b":4\}, but got no result: Tool "add" of server "demo" did not run: a person \(.*\) declined to approve it\.$/,
    );
    assert.ok(!dev.output().includes(KEY));
  });
});
