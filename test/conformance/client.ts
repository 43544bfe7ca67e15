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
 * Env: TEMPORAL_ADDRESS, DURABLE_MCP_TASK_QUEUE (the runner passes its own environment on).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { causeMessages } from '../../src/contract/causes.js';
import type { Request, ToolResult } from '../../src/contract/index.js';
import { accept, answerWith, nextPending, type AnswerFor } from '../../src/testing/answering.js';
import type { McpToolInfo } from '../../src/mcp/index.js';
import { submitAnswerUpdate } from '../../src/workflows/messages.js';

interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

const serverUrl = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: ToolCall[] };
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

const listOnly = new Set(['initialize', 'request-metadata', 'json-schema-ref-no-deref']);
try {
  if (scenario === 'sep-2322-client-request-state') {
    await requestStateFlow();
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
await connection.close();
for (const f of failures) console.error(f);
process.exit(failures.length ? 1 : 0);
