/**
 * `durable-mcp worker --agent` with an OpenAI-compatible model chosen by the environment (DURABLE_MCP_MODEL_BASE_URL,
 * DURABLE_MCP_MODEL_API_KEY): the worker process runs mcpAgent, and its model activity really calls the server at that
 * URL over HTTP. The server is a small local stand-in that speaks the Chat Completions API (first a call of the demo
 * server's `add`, then text built from what the tool returned). A real Temporal dev server, the real demo MCP server
 * over stdio. The planted key reaches the model server and nowhere else: not the worker's output, not the history.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import type { McpAgentInput, McpAgentResult } from '../../src/ai-sdk/index.js';
import { demoServerPath } from '../../src/cli/dev-config.js';
import { createLocalEnv, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';

const cli = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
const KEY = 'sk-planted-7c1e0d9b44f2a6e3';

interface Seen {
  authorization?: string;
  body: { model: string; messages: Array<{ role: string; content: unknown; tool_call_id?: string }>; tools?: Array<{ function: { name: string } }> };
}

/** A Chat Completions stand-in: a tool call of `*_add` when the last message is the user's, else text from the tool message. */
function chatServer(seen: Seen[]): Server {
  const reply = (body: Seen['body']) => {
    const last = body.messages.at(-1)!;
    const message =
      last.role === 'tool'
        ? { role: 'assistant', content: `The model server read: ${String(last.content)}` }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: body.tools!.map((t) => t.function.name).find((n) => n.endsWith('_add')), arguments: '{"a":2,"b":40}' },
              },
            ],
          };
    return {
      id: `chatcmpl-${seen.length}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: last.role === 'tool' ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  };
  return createServer(async (req: IncomingMessage, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(text) as Seen['body'];
    seen.push({ authorization: req.headers.authorization, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply(body)));
  });
}

/** Every string and byte array of a value, as text (payload data decoded as UTF-8). */
function allText(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (value && typeof value === 'object') for (const v of Object.values(value)) allText(v, out);
  return out;
}

describe('worker --agent: the model provider from the environment, an OpenAI-compatible server', () => {
  let env: TestWorkflowEnvironment;
  let server: Server;
  let worker: SpawnedProcess | undefined;
  const seen: Seen[] = [];

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: false });
    server = chatServer(seen);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await worker?.kill('SIGTERM');
    await new Promise((r) => server.close(r));
    await env?.teardown();
  });

  it("the agent's model calls go to DURABLE_MCP_MODEL_BASE_URL with the key; the key is in no output and no history", async () => {
    const dir = tempDir('agent-provider-');
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { demo: { command: [process.execPath, demoServerPath] } } }));
    const taskQueue = uniqueTaskQueue('agent-provider');
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    worker = spawnNode([cli, 'worker', '--agent', '--mcp-config', config], {
      TEMPORAL_ADDRESS: env.address,
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: '',
      DURABLE_MCP_MODEL_PROVIDER: undefined,
      OPENAI_API_KEY: undefined,
      ANTHROPIC_API_KEY: undefined,
      DURABLE_MCP_MODEL_BASE_URL: baseUrl,
      DURABLE_MCP_MODEL_API_KEY: KEY,
      // The agent bundle is made once here (webpack) and kept in this folder.
      DURABLE_MCP_CACHE_DIR: join(dir, 'cache'),
    });
    const ready = await worker.waitFor(/durable-mcp worker: Temporal .*\n/, 240_000);
    assert.ok(
      ready.includes(`agents (mcpAgent) with model: OpenAI-compatible server at ${baseUrl}, key from DURABLE_MCP_MODEL_API_KEY (not shown)`),
      worker.output(),
    );

    const input: McpAgentInput = { prompt: 'Add 2 and 40', servers: ['demo'], model: 'local-llama' };
    const handle = await env.client.workflow.start('mcpAgent', { taskQueue, workflowId: `agent-provider-${Date.now()}`, args: [input] });
    const result = (await handle.result()) as McpAgentResult;

    // The model server was asked twice, with the key, for the model the agent named, with the demo server's tools.
    assert.equal(seen.length, 2, JSON.stringify(seen));
    for (const s of seen) {
      assert.equal(s.authorization, `Bearer ${KEY}`);
      assert.equal(s.body.model, 'local-llama');
      assert.ok(s.body.tools?.some((t) => t.function.name === 'demo_add'));
    }
    assert.equal(seen[0]!.body.messages.at(-1)!.content, 'Add 2 and 40');
    // The tool ran (demo server) and what it returned went back to the model server, whose text is the agent's.
    assert.equal(result.text, 'The model server read: {"sum":42}');
    assert.equal(result.toolCalls[0]!.name, 'demo_add');
    assert.equal(result.toolCalls[0]!.result?.isError, false);

    // The key stays in the worker: not in its output, not in any event or payload of the workflow's history.
    const history = allText(await handle.fetchHistory()).join('\n');
    assert.match(history, /Add 2 and 40/, 'the history is searched as text');
    assert.ok(!history.includes(KEY), 'the key is not in the history');
    assert.ok(!worker.output().includes(KEY), `the key is not in the worker's output:\n${worker.output()}`);
  });
});
