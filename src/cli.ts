#!/usr/bin/env node
/** The `durable-mcp` command line: dev, worker, call, pending, answer, decline, cancel, result. */
import { Command, InvalidArgumentError } from 'commander';
import type { Answer } from './contract/index.js';
import {
  connectClient,
  DurableMcpClient,
  InvalidAnswerError,
  NoSuchPendingRequestError,
  SearchAttributeNotRegisteredError,
  TemporalUnreachableError,
  UnknownWorkflowError,
} from './client/index.js';
import { startDev, type DevHandle } from './dev.js';
import { tracesRequested } from './telemetry.js';
import { mcpConfigPathFrom, runWorkerProcess } from './worker.js';

function jsonObject(what: string) {
  return (value: string): Record<string, unknown> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      throw new InvalidArgumentError(`${what} must be JSON: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError(`${what} must be a JSON object`);
    return parsed as Record<string, unknown>;
  };
}
function positiveInt(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive integer, got "${value}"`);
    return n;
  };
}

function positiveSeconds(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0 || n > 600) throw new InvalidArgumentError(`${what} must be a whole number of seconds from 1 to 600, got "${value}"`);
    return n;
  };
}

async function client(): Promise<DurableMcpClient> {
  // With an OTLP variable set, the CLI's calls start the trace (client → workflow → activity → MCP).
  const interceptors = tracesRequested() ? (await import('./tracing.js')).tracingClientInterceptors() : [];
  const { client } = await connectClient({ interceptors: { workflow: interceptors } });
  return new DurableMcpClient(client, { taskQueue: process.env.DURABLE_MCP_TASK_QUEUE });
}

function print(json: boolean, value: unknown, text: () => string): void {
  console.log(json ? JSON.stringify(value, null, 2) : text());
}

const program = new Command();
program
  .name('durable-mcp')
  .description('Run MCP tool calls as Temporal activities, with durable elicitation (human input).')
  .version('0.1.0')
  .showHelpAfterError();

program
  .command('dev')
  .description('Start an embedded Temporal dev server (SQLite under --data-dir), the worker and a demo MCP server')
  .option('--data-dir <dir>', 'where the dev server keeps its SQLite file', '.data')
  .option('--mcp-config <path>', 'MCP config file (default: the demo server)')
  .option('--port <port>', 'Temporal gRPC port', positiveInt('--port'), 7233)
  .option('--ui-port <port>', 'Temporal UI port', positiveInt('--ui-port'), 8233)
  .action(async (opts: { dataDir: string; mcpConfig?: string; port: number; uiPort: number }) => {
    // Signal handlers first: a signal during start-up stops the dev server too (nothing is left running).
    const starting = new AbortController();
    let dev: DevHandle | undefined;
    let signals = 0;
    const onSignal = () => {
      if (++signals === 1) {
        console.log('\nstopping…');
        starting.abort();
        void dev?.stop();
      } else {
        console.log('stopping now');
        dev?.kill();
        process.exit(130);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      dev = await startDev({ dataDir: opts.dataDir, mcpConfigPath: opts.mcpConfig, port: opts.port, uiPort: opts.uiPort, taskQueue: process.env.DURABLE_MCP_TASK_QUEUE, signal: starting.signal });
    } catch (err) {
      if (starting.signal.aborted) {
        console.log('stopped');
        return;
      }
      throw err;
    }
    await dev.done;
    console.log('stopped');
  });

program
  .command('worker')
  .description('Run the worker against TEMPORAL_ADDRESS (envconfig), with the MCP config')
  .option('--mcp-config <path>', 'MCP config file (default: $MCP_CONFIG or mcp.json)')
  .action(async (opts: { mcpConfig?: string }) => {
    await runWorkerProcess({ mcpConfigPath: mcpConfigPathFrom(opts.mcpConfig ? ['--mcp-config', opts.mcpConfig] : []) });
  });

program
  .command('call <server> <tool>')
  .description('Start a tool call (the mcpToolCall workflow); prints its workflow id')
  .option('--args <json>', 'tool arguments, a JSON object', jsonObject('--args'))
  .option('--workflow-id <id>', 'workflow id (default: generated)')
  .option('--expires-in <ms>', 'how long a request may wait for an answer', positiveInt('--expires-in'))
  .option('--hold-for <ms>', 'how long a waiting call holds its MCP session', positiveInt('--hold-for'))
  .option('--wait', 'wait for the result and print it')
  .option('--json', 'machine-readable output')
  .action(async (server: string, tool: string, opts: { args?: Record<string, unknown>; workflowId?: string; expiresIn?: number; holdFor?: number; wait?: boolean; json?: boolean }) => {
    const c = await client();
    const elicitation = opts.expiresIn || opts.holdFor ? { expiresIn: opts.expiresIn, holdFor: opts.holdFor } : undefined;
    const handle = await c.startToolCall({ server, tool, arguments: opts.args, workflowId: opts.workflowId, elicitation });
    if (!opts.wait) return print(!!opts.json, { workflowId: handle.workflowId }, () => handle.workflowId);
    if (!opts.json) console.error(`started ${handle.workflowId}; waiting for the result (answer pending requests from another terminal)`);
    const result = await c.result(handle.workflowId);
    print(!!opts.json, { workflowId: handle.workflowId, ...result }, () => result.output);
    if (result.isError) process.exitCode = 2;
  });

program
  .command('pending [workflowId]')
  .description('List pending requests: of one workflow, or of every workflow awaiting input')
  .option('--json', 'machine-readable output')
  .option('--wait [seconds]', 'with a workflow id: wait until a request is pending (default 60 s, at most 600)', positiveSeconds('--wait'))
  .action(async (workflowId: string | undefined, opts: { json?: boolean; wait?: number | true }) => {
    if (opts.wait !== undefined && !workflowId) program.error('durable-mcp: pending --wait needs a workflow id');
    const c = await client();
    if (opts.wait !== undefined && workflowId) {
      await c.waitForPending(workflowId, { timeoutMs: (opts.wait === true ? 60 : opts.wait) * 1000 });
    }
    const rows = workflowId
      ? [{ workflowId, pending: await c.pending(workflowId) }]
      : (await c.awaitingInput()).map((w) => ({ workflowId: w.workflowId, pending: w.pending }));
    print(!!opts.json, rows, () => {
      const lines: string[] = [];
      for (const row of rows) {
        for (const { request, context } of row.pending) {
          lines.push(`${row.workflowId}  ${request.id}  ${request.kind}  ${context.server}/${context.tool}${context.step ? ` (step ${context.step})` : ''}`);
          lines.push(`    ${request.prompt}`);
          if (request.url) lines.push(`    url: ${request.url}`);
          const schema = (request.data as { schema?: { properties?: Record<string, { type?: string }>; required?: string[] } } | undefined)?.schema;
          if (schema?.properties) {
            const fields = Object.entries(schema.properties).map(([k, v]) => `${k}${schema.required?.includes(k) ? '*' : ''}:${v.type ?? '?'}`);
            lines.push(`    fields: ${fields.join(', ')}`);
          }
          if (request.expiresAt) lines.push(`    expires: ${request.expiresAt}`);
        }
      }
      return lines.length ? lines.join('\n') : 'no pending requests';
    });
  });

function answerCommand(name: 'answer' | 'decline' | 'cancel', description: string) {
  const cmd = program
    .command(`${name} <workflowId> <requestId>`)
    .description(description)
    .option('--json', 'machine-readable output');
  if (name === 'answer') cmd.option('--data <json>', 'the answer data, a JSON object matching the requested schema', jsonObject('--data'));
  cmd.action(async (workflowId: string, requestId: string, opts: { data?: Record<string, unknown>; json?: boolean }) => {
    const c = await client();
    const res =
      name === 'answer' ? await c.answer(workflowId, requestId, opts.data) : name === 'decline' ? await c.decline(workflowId, requestId) : await c.cancel(workflowId, requestId);
    print(!!opts.json, res, () => `${requestId}: ${res.action}`);
  });
}
answerCommand('answer', 'Accept a pending request, with --data for a form');
answerCommand('decline', 'Decline a pending request (the MCP server sees decline)');
answerCommand('cancel', 'Cancel a pending request (the MCP server sees cancel)');

program
  .command('result <workflowId>')
  .description("Wait for a tool call's result and print its output")
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, opts: { json?: boolean }) => {
    const c = await client();
    const result = await c.result(workflowId);
    print(!!opts.json, result, () => result.output);
    if (result.isError) process.exitCode = 2;
  });

const known = [TemporalUnreachableError, UnknownWorkflowError, NoSuchPendingRequestError, InvalidAnswerError, SearchAttributeNotRegisteredError];
program.parseAsync(process.argv).then(
  () => {
    // Connections keep the event loop alive; commands other than dev/worker are done here.
    const cmd = process.argv[2];
    if (cmd !== 'dev' && cmd !== 'worker') process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    const e = err as Error;
    const message = known.some((k) => e instanceof k) ? e.message : `${e.name ?? 'Error'}: ${e.message}`;
    console.error(`durable-mcp: ${message}`);
    process.exit(1);
  },
);

export type { Answer };
