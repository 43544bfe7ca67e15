/**
 * The client the conformance runner spawns (`node client.js <server URL>`, the scenario in MCP_CONFORMANCE_SCENARIO,
 * its tool calls, if it names any, in MCP_CONFORMANCE_CONTEXT). It speaks to Temporal only, never to MCP: it lists
 * the server's tools with the `conformanceListTools` workflow and runs each tool call as an `mcpToolCall`
 * workflow on the conformance worker (test/conformance/worker.ts), whose server name is the scenario's URL. It is
 * the person too: every request is answered through `submitAnswer`, a form with `{}` (so the schema's defaults
 * apply), a URL by fetching it as a browser would (following redirects) and then accepting.
 *
 * Each call is one attempt (`maxAttempts: 1`): a call that fails fails within the scenario's time. Exit 0 when
 * every call completed (an `isError` result included), 1 when one failed, with the reasons on stderr.
 * An `auth/*` scenario's server is behind OAuth: before the first call the client tells the worker so (the server's
 * `auth`, with the pre-registered client or the machine's client credentials the scenario's context gives, in the
 * worker's auth directory, see test/conformance/worker.ts), and a sign-in bot watches the server's login: each `authorization` request it makes is
 * opened as a browser would (a fetch following redirects, which ends at the inbox's /oauth/callback), never answered
 * through `submitAnswer` (the login refuses "done" on a sign-in).
 * Env: TEMPORAL_ADDRESS, DURABLE_MCP_TASK_QUEUE, CONFORMANCE_AUTH_DIR (the runner passes its own environment on).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { causeMessages } from '../../src/contract/causes.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import type { Request, ToolResult } from '../../src/contract/index.js';
import { accept, answerWith, nextPending, type AnswerFor } from '../../src/testing/answering.js';
import type { McpToolInfo } from '../../src/mcp/index.js';
import { submitAnswerUpdate } from '../../src/workflows/messages.js';
import { authFileOf } from './auth-file.js';

interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

const serverUrl = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  toolCalls?: ToolCall[];
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
};
const taskQueue = process.env.DURABLE_MCP_TASK_QUEUE ?? 'durable-mcp';
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
const client = new Client({ connection });
const failures: string[] = [];

const workflowId = (what: string): string => `conformance-${scenario.replace(/[^a-zA-Z0-9_-]/g, '_')}-${what}-${randomUUID().slice(0, 8)}`;

/** The person: `{}` for a form, a visit for a URL. */
async function person(request: Request): Promise<AnswerFor> {
  if (request.kind === 'authorization' && request.url) {
    const page = await fetch(request.url, { redirect: 'follow' });
    await page.arrayBuffer();
    return accept();
  }
  return accept({});
}

function startCall(call: ToolCall): Promise<WorkflowHandle> {
  return client.workflow.start('mcpToolCall', {
    taskQueue,
    workflowId: workflowId(call.name),
    args: [{ server: serverUrl, tool: call.name, arguments: call.arguments ?? {}, maxAttempts: 1 }],
  });
}

async function outcome(call: ToolCall, handle: WorkflowHandle): Promise<ToolResult | undefined> {
  try {
    return (await handle.result()) as ToolResult;
  } catch (err) {
    failures.push(`tools/call ${call.name}: ${causeMessages(err)}`);
    return undefined;
  }
}

/** One tool call, every request answered by the person. */
async function callTool(call: ToolCall): Promise<ToolResult | undefined> {
  const handle = await startCall(call);
  const answerer = answerWith(handle, person);
  const result = await outcome(call, handle);
  await answerer.stop().catch((err: Error) => failures.push(`answering ${call.name}: ${err.message}`));
  return result;
}

async function listTools(): Promise<McpToolInfo[]> {
  try {
    return await client.workflow.execute('conformanceListTools', { taskQueue, workflowId: workflowId('list'), args: [serverUrl] });
  } catch (err) {
    failures.push(`tools/list: ${causeMessages(err)}`);
    return [];
  }
}

/** Arguments for a tool from its input schema: each required property's default, else a value of its type. */
function argumentsFor(tool: McpToolInfo): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string; default?: unknown; enum?: unknown[] }>;
  const required = (tool.inputSchema.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const p = properties[name] ?? {};
    if (p.default !== undefined) args[name] = p.default;
    else if (p.enum?.length) args[name] = p.enum[0];
    else if (p.type === 'number' || p.type === 'integer') args[name] = 2;
    else if (p.type === 'boolean') args[name] = true;
    else if (p.type === 'object') args[name] = {};
    else if (p.type === 'array') args[name] = [];
    else args[name] = 'conformance';
  }
  return args;
}

/**
 * sep-2322-client-request-state: a call waits in an input_required round while an unrelated call runs (its
 * request must carry nothing of the other's round), then is answered; a round without requestState; a result
 * without resultType.
 */
async function requestStateFlow(): Promise<void> {
  const echo = { name: 'test_mrtr_echo_state' };
  const waiting = await startCall(echo);
  const { request } = await nextPending(waiting, { timeout: 20_000 });
  await callTool({ name: 'test_mrtr_unrelated' });
  await waiting.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ...(await person(request)) }] });
  await outcome(echo, waiting);
  await callTool({ name: 'test_mrtr_no_state' });
  await callTool({ name: 'test_mrtr_no_result_type' });
}

/**
 * The client metadata document URL the suite's reference client is configured with (auth/basic-cimd expects it as the
 * client id where the authorization server supports such documents; elsewhere the worker falls back to registration).
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * The scenario server's `auth`: a machine's client credentials (auth/client-credentials-*: the context's secret, or its
 * private key and algorithm), a pre-registered client when the context gives one, else a metadata document URL.
 */
function authOf(): unknown {
  // The scenarios' servers and authorization servers listen on loopback, which the OAuth flow fetches from only when allowed.
  const loopback = { allowPrivateNetwork: true };
  if (scenario.startsWith('auth/client-credentials')) {
    const how = context.private_key_pem
      ? { privateKey: context.private_key_pem, algorithm: context.signing_algorithm }
      : { clientSecret: context.client_secret };
    return { grant: 'client_credentials', clientId: context.client_id, ...how, ...loopback };
  }
  if (!context.client_id) return { clientMetadataUrl: CLIENT_METADATA_URL, ...loopback };
  return { clientId: context.client_id, ...(context.client_secret ? { clientSecret: context.client_secret } : {}), ...loopback };
}

/**
 * The person at the browser: opens each sign-in the server's login asks for (a fetch that follows the authorization
 * server's redirect to the inbox's /oauth/callback) until stopped. The login exists once a call asked it.
 */
function signInBot(): { stop(): Promise<void> } {
  const login = client.workflow.getHandle(loginWorkflowId(serverUrl));
  const seen: string[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      let request: Request;
      try {
        ({ request } = await nextPending(login, { seen, timeout: 2_000 }));
      } catch {
        await sleep(100); // no login yet, or no new sign-in within the slice
        continue;
      }
      seen.push(request.id);
      if (request.kind !== 'authorization' || !request.url) continue;
      try {
        const page = await fetch(request.url, { redirect: 'follow' });
        const text = await page.text();
        if (!page.ok) console.error(`sign-in ${request.id}: ${page.url.split('?')[0]} answered ${page.status}: ${/<h1>([^<]*)/.exec(text)?.[1] ?? ''}`);
      } catch (err) {
        console.error(`sign-in ${request.id}: ${(err as Error).message}`);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}

const listOnly = new Set(['initialize', 'request-metadata', 'json-schema-ref-no-deref']);
const oauth = scenario.startsWith('auth/');
if (oauth) writeFileSync(authFileOf(process.env.CONFORMANCE_AUTH_DIR!, serverUrl), JSON.stringify(authOf()));
const bot = oauth ? signInBot() : undefined;
try {
  if (scenario === 'sep-2322-client-request-state') {
    await requestStateFlow();
  } else if (oauth) {
    // The scenarios' servers have one tool, test-tool. The listing workflow's activity does not wait for a login
    // (only mcpToolCall does), so the call comes first: its login signs in.
    await callTool({ name: 'test-tool' });
  } else if (context.toolCalls) {
    for (const call of context.toolCalls) await callTool(call);
  } else {
    const tools = await listTools();
    if (scenario === 'json-schema-2020-12-preservation') {
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (!focal) failures.push('tools/list: json_schema_2020_12_tool not listed');
      else await callTool({ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } });
    } else if (!listOnly.has(scenario)) {
      for (const tool of tools) await callTool({ name: tool.name, arguments: argumentsFor(tool) });
    }
  }
} catch (err) {
  failures.push(`client: ${causeMessages(err)}`);
}
await bot?.stop();
await connection.close();
for (const f of failures) console.error(f);
process.exit(failures.length ? 1 : 0);
