#!/usr/bin/env node
/** The `durable-mcp` command line: dev, worker, call, pending, answer, decline, cancel, result, temporal. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { Answer } from '../contract/index.js';
import {
  AnswerRejectedError,
  connectClient,
  DEFAULT_TASK_QUEUE,
  DurableMcpClient,
  NoWorkerError,
  SearchAttributeNotRegisteredError,
  TemporalUnreachableError,
  ToolCallFailedError,
  UnknownWorkflowError,
  UpdateLimitError,
  WorkflowClosedError,
} from '../client/index.js';
import { causeMessages } from '../client/errors.js';
import { DevPortTakenError, startDev, type DevHandle } from './dev.js';
import { runInboxCommand } from './inbox-command.js';
import { InboxOptionError, InboxTokenRequiredError } from '../inbox/server.js';
import { pendingEntryLines, terminalSafe, terminalText } from './terminal.js';
import { findTemporalBinary } from './temporal-binaries.js';
import { FIELD_CHECKS, type DurationField } from '../workflows/input.js';
import { tracesRequested } from '../telemetry/metrics.js';
import { mcpConfigPathFrom, runWorkerProcess } from './worker-command.js';

/** Exit codes (the README lists them). */
export const EXIT = {
  OK: 0,
  /** The tool call failed (the workflow failed, was cancelled or terminated), or the tool returned isError. */
  CALL_FAILED: 1,
  /** Bad usage: an unknown flag, a bad flag value, --data for a URL-mode request. */
  USAGE: 2,
  /** Temporal cannot be reached. */
  TEMPORAL_UNREACHABLE: 3,
  /** No worker answered: nothing polls the workflow's task queue (or it did not reply within seconds). */
  NO_WORKER: 4,
  /** Refused: no such workflow, no such pending request, an answer the workflow rejected, a closed workflow. */
  REFUSED: 5,
  /** Anything else (a bug, or an error this table does not know). */
  OTHER: 6,
} as const;

/** A usage error found after parsing (exit code 2). */
class UsageError extends Error {
  override name = 'UsageError';
}

/** `--x <json>`, `--x @file` or (when `stdin`) `--x -`: a JSON object. */
function jsonObject(what: string, { stdin = false }: { stdin?: boolean } = {}) {
  return (value: string): Record<string, unknown> => {
    let text = value;
    let from = '';
    if (value === '-' && stdin) {
      text = readFileSync(0, 'utf8');
      from = ' (from stdin)';
    } else if (value.startsWith('@')) {
      const path = value.slice(1);
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        throw new InvalidArgumentError(`${what} ${value}: cannot read "${path}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      from = ` (from ${path})`;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new InvalidArgumentError(`${what}${from} must be JSON: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError(`${what}${from} must be a JSON object`);
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

/**
 * A Temporal Duration flag for a field of the tool call's input, checked by the workflow's own check of that field
 * (src/workflows/input.ts): digits are milliseconds, anything else ms-format ("4s", "24h", "1 day").
 */
function duration(what: string, field: DurationField) {
  return (value: string): number | string => {
    const v = /^\d+$/.test(value.trim()) ? Number(value) : value;
    const problem = FIELD_CHECKS[field](v);
    if (problem !== undefined) throw new InvalidArgumentError(`${what} ${problem}, got "${value}"`);
    return v;
  };
}

async function client(): Promise<DurableMcpClient> {
  // With an OTLP variable set, the CLI's calls start the trace (client → workflow → activity → MCP).
  const interceptors = tracesRequested() ? (await import('../telemetry/tracing.js')).tracingClientInterceptors() : [];
  const { client } = await connectClient({ interceptors: { workflow: interceptors } });
  return new DurableMcpClient(client, { taskQueue: process.env.DURABLE_MCP_TASK_QUEUE });
}

function print(json: boolean, value: unknown, text: () => string): void {
  console.log(json ? JSON.stringify(value, null, 2) : text());
}

/** One line of a long-running command's `--json` output (dev, worker, inbox): one JSON object a line. */
function jsonLine(value: Record<string, unknown>): void {
  console.log(JSON.stringify(value));
}

/**
 * Wait for a call's result, saying so on stderr; on a terminal, a progress bar from the workflow's
 * `progress` query (MCP progress notifications of the tool) is drawn until the result arrives.
 */
async function waitForResult(c: DurableMcpClient, workflowId: string, json: boolean) {
  const tty = !json && process.stderr.isTTY === true;
  if (!json) console.error(`waiting for the result of ${workflowId} (Ctrl-C stops waiting; the call goes on)`);
  let done = false;
  let drawn = false;
  const bar = (async () => {
    while (tty && !done) {
      await new Promise((r) => setTimeout(r, 1000));
      if (done) break;
      const [p] = await c.progress(workflowId, { timeoutMs: 2000 }).catch(() => []);
      if (!p || done) continue;
      const width = 30;
      const frac = p.total ? Math.max(0, Math.min(1, p.progress / p.total)) : undefined;
      const filled = frac === undefined ? 0 : Math.round(frac * width);
      const count = p.total ? `${p.progress}/${p.total}` : `${p.progress}`;
      process.stderr.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${count}${p.message ? ` ${p.message.slice(0, 60)}` : ''}`);
      drawn = true;
    }
  })();
  try {
    return await c.result(workflowId);
  } finally {
    done = true;
    if (drawn) process.stderr.write('\r\x1b[2K');
    void bar;
  }
}

const program = new Command();
program
  .name('durable-mcp')
  .description('Run MCP tool calls as Temporal activities, with durable elicitation (human input).')
  .version('0.1.0')
  // Options after a command are that command's: `durable-mcp temporal --version` is the Temporal CLI's.
  .enablePositionalOptions()
  .exitOverride()
  .showHelpAfterError();

program
  .command('dev')
  .description('Start an embedded Temporal dev server (SQLite under --data-dir), the worker and a demo MCP server')
  .option('--data-dir <dir>', 'where the dev server keeps its SQLite file', '.data')
  .option('--mcp-config <path>', 'MCP config file (default: the demo server)')
  .option('--port <port>', 'Temporal gRPC port', positiveInt('--port'), 7233)
  .option('--ui-port <port>', 'Temporal UI port', positiveInt('--ui-port'), 8233)
  .option('--inbox-port <port>', 'inbox web page port (0: any free port)', (v: string) => (v === '0' ? 0 : positiveInt('--inbox-port')(v)), 8787)
  .option('--json', 'one JSON object a line on stdout: "ready" (addresses, task queue, database), "warning", "note", "stopping", "stopped", "error"')
  .action(async (opts: { dataDir: string; mcpConfig?: string; port: number; uiPort: number; inboxPort: number; json?: boolean }) => {
    const json = !!opts.json;
    const say = (text: string, event: Record<string, unknown>) => (json ? jsonLine(event) : console.log(text));
    // Signal handlers first: a signal during start-up stops the dev server too (nothing is left running).
    const starting = new AbortController();
    let dev: DevHandle | undefined;
    let signals = 0;
    const onSignal = () => {
      if (++signals === 1) {
        say('\nstopping…', { event: 'stopping' });
        starting.abort();
        void dev?.stop();
      } else {
        say('stopping now', { event: 'stopping', now: true });
        dev?.kill();
        process.exit(130);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      dev = await startDev({
        dataDir: opts.dataDir,
        mcpConfigPath: opts.mcpConfig,
        port: opts.port,
        uiPort: opts.uiPort,
        inboxPort: opts.inboxPort,
        taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
        signal: starting.signal,
        // With --json the human text (addresses, the commands to try) gives way to one "ready" line.
        ...(json ? { log: () => undefined, warn: (message: string) => jsonLine({ event: 'warning', message }), note: (message: string) => jsonLine({ event: 'note', message }) } : {}),
      });
    } catch (err) {
      if (starting.signal.aborted) {
        say('stopped', { event: 'stopped' });
        return;
      }
      throw err;
    }
    if (json) {
      jsonLine({
        event: 'ready',
        temporal: { address: dev.address, namespace: dev.namespace, external: dev.external, uiUrl: dev.uiAddress ?? null, database: dev.database ?? null },
        inboxUrl: dev.inboxUrl ?? null,
        taskQueue: dev.taskQueue,
        mcpServers: dev.mcpServers,
      });
    }
    await dev.done;
    say('stopped', { event: 'stopped' });
  });

program
  .command('inbox')
  .description('Serve the inbox web page, where a person answers pending requests (a Temporal client, envconfig)')
  .option('--host <address>', 'bind address; anything but loopback needs DURABLE_MCP_INBOX_TOKEN', '127.0.0.1')
  .option('--port <port>', 'port', (v: string) => (v === '0' ? 0 : positiveInt('--port')(v)), 8787)
  .option('--temporal-ui <url>', 'Temporal UI address, for links to workflows (default: $TEMPORAL_UI_URL)')
  .option('--json', 'one JSON object a line on stdout: "ready" (url, Temporal address), "stopped", "error"')
  .action((opts: { host: string; port: number; temporalUi?: string; json?: boolean }) => runInboxCommand(opts));

program
  .command('worker')
  .description('Run the worker against TEMPORAL_ADDRESS (envconfig), with the MCP config')
  .option('--mcp-config <path>', 'MCP config file (default: $MCP_CONFIG or mcp.json)')
  .option('--json', 'one JSON object a line on stdout: "ready" (Temporal address, namespace, task queue, MCP servers), "warning", "note", "stopping", "stopped", "error"')
  .action(async (opts: { mcpConfig?: string; json?: boolean }) => {
    await runWorkerProcess({ mcpConfigPath: mcpConfigPathFrom(opts.mcpConfig ? ['--mcp-config', opts.mcpConfig] : []), ...(opts.json ? { event: (e) => jsonLine(e) } : {}) });
  });

program
  .command('call <server> <tool>')
  .description('Start a tool call (the mcpToolCall workflow); prints its workflow id, or with --wait its result')
  .option('--args <json>', 'tool arguments: a JSON object, or @file to read it from a file', jsonObject('--args'))
  .option('--workflow-id <id>', 'workflow id (default: generated)')
  .option('--expires-in <duration>', 'how long a request may wait for an answer: ms, or "4s", "24h", "1 day" (default 24h)', duration('--expires-in', 'elicitation.expiresIn'))
  .option('--hold-for <duration>', 'how long a waiting call holds its MCP session (default 3m)', duration('--hold-for', 'elicitation.holdFor'))
  .option('--tool-timeout <duration>', 'timeout of one tools/call (default 1h)', duration('--tool-timeout', 'toolTimeout'))
  .option('--heartbeat-timeout <duration>', 'how fast a dead worker is noticed (default 30s)', duration('--heartbeat-timeout', 'heartbeatTimeout'))
  .option('--max-attempts <n>', 'attempts before the call fails (default 10)', positiveInt('--max-attempts'))
  .option('--wait', 'wait for the result and print it (a progress bar on a terminal)')
  .option('--json', 'machine-readable output')
  .action(
    async (
      server: string,
      tool: string,
      opts: { args?: Record<string, unknown>; workflowId?: string; expiresIn?: number | string; holdFor?: number | string; toolTimeout?: number | string; heartbeatTimeout?: number | string; maxAttempts?: number; wait?: boolean; json?: boolean },
    ) => {
      const c = await client();
      const elicitation = opts.expiresIn !== undefined || opts.holdFor !== undefined ? { expiresIn: opts.expiresIn as any, holdFor: opts.holdFor as any } : undefined;
      const handle = await c.startToolCall({
        server,
        tool,
        arguments: opts.args,
        workflowId: opts.workflowId,
        elicitation,
        ...(opts.toolTimeout !== undefined ? { toolTimeout: opts.toolTimeout as any } : {}),
        ...(opts.heartbeatTimeout !== undefined ? { heartbeatTimeout: opts.heartbeatTimeout as any } : {}),
        ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
      });
      if (!opts.wait) return print(!!opts.json, { workflowId: handle.workflowId }, () => handle.workflowId);
      if (!opts.json) console.error(`started ${handle.workflowId} (answer its requests from another terminal: durable-mcp pending ${handle.workflowId})`);
      const result = await waitForResult(c, handle.workflowId, !!opts.json);
      print(!!opts.json, { workflowId: handle.workflowId, ...result }, () => terminalText(result.output));
      if (result.isError) process.exitCode = EXIT.CALL_FAILED;
    },
  );

program
  .command('pending [workflowId]')
  .description('List pending requests: of one workflow, or of every workflow awaiting input (unreachable ones are listed with the reason)')
  .option('--json', 'machine-readable output')
  .option('--wait [seconds]', 'with a workflow id: wait until a request is pending (default 60 s, at most 600)', positiveSeconds('--wait'))
  .action(async (workflowId: string | undefined, opts: { json?: boolean; wait?: number | true }) => {
    if (opts.wait !== undefined && !workflowId) throw new UsageError('pending --wait needs a workflow id');
    const c = await client();
    if (opts.wait !== undefined && workflowId) {
      await c.waitForPending(workflowId, { timeoutMs: (opts.wait === true ? 60 : opts.wait) * 1000 });
    }
    const rows: Array<{ workflowId: string; pending: Awaited<ReturnType<DurableMcpClient['pendingDetails']>>; unreachable?: string }> = workflowId
      ? [{ workflowId, pending: await c.pendingDetails(workflowId) }]
      : (await c.listAwaitingInput()).map((w) => ({ workflowId: w.workflowId, pending: w.pending, ...(w.unreachable ? { unreachable: w.unreachable } : {}) }));
    print(!!opts.json, rows, () => {
      const lines: string[] = [];
      for (const row of rows) {
        if (row.unreachable) lines.push(`${row.workflowId}  (unreachable: ${terminalSafe(row.unreachable)})`);
        // Server text is untrusted: escaped and indented for the terminal (src/cli/terminal.ts).
        for (const { request, context } of row.pending) lines.push(...pendingEntryLines(row.workflowId, request, context));
      }
      return lines.length ? lines.join('\n') : 'no pending requests';
    });
  });

function answerCommand(name: 'answer' | 'decline' | 'cancel', description: string) {
  const cmd = program
    .command(`${name} <workflowId> <requestId>`)
    .description(description)
    .option('--signal', 'send it as the durable `answer` signal: works while no worker runs; validated when a worker picks it up (check with `pending`)')
    .option('--json', 'machine-readable output');
  if (name === 'answer') cmd.option('--data <json>', 'the answer data, a JSON object matching the requested schema; @file reads a file, - reads stdin', jsonObject('--data', { stdin: true }));
  cmd.action(async (workflowId: string, requestId: string, opts: { data?: Record<string, unknown>; json?: boolean; signal?: boolean }) => {
    const c = await client();
    const answer: Answer =
      name === 'answer' ? { id: requestId, ok: true, ...(opts.data !== undefined ? { data: opts.data } : {}) } : { id: requestId, ok: false, reason: name === 'decline' ? 'declined' : 'cancelled' };
    if (opts.signal) {
      await c.signalAnswer(workflowId, answer);
      return print(!!opts.json, { id: requestId, sent: 'signal' }, () => `${requestId}: sent as a signal; a worker validates it when it picks it up (check with: durable-mcp pending ${workflowId})`);
    }
    if (opts.data !== undefined) {
      // A URL-mode request is answered once the person has been to the link: it carries no data.
      const request = (await c.pendingDetails(workflowId)).find((p) => p.request.id === requestId)?.request;
      if (request?.kind === 'authorization') throw new UsageError(`request "${requestId}" is a URL-mode (authorization) request: it takes no --data; run \`durable-mcp answer ${workflowId} ${requestId}\` once the person has completed ${request.url ?? 'the link'}`);
    }
    const res = await c.submit(workflowId, answer);
    print(!!opts.json, res, () => `${requestId}: ${res.action}`);
  });
}
answerCommand('answer', 'Accept a pending request, with --data for a form (a URL-mode request takes none)');
answerCommand('decline', 'Decline a pending request (the MCP server sees decline)');
answerCommand('cancel', 'Cancel a pending request (the MCP server sees cancel)');

program
  .command('result <workflowId>')
  .description("Wait for a tool call's result and print its output (a failed call prints its cause)")
  .option('--json', 'machine-readable output')
  .action(async (workflowId: string, opts: { json?: boolean }) => {
    const c = await client();
    const result = await waitForResult(c, workflowId, !!opts.json);
    print(!!opts.json, result, () => terminalText(result.output));
    if (result.isError) process.exitCode = EXIT.CALL_FAILED;
  });

program
  .command('health')
  .description('Exit 0 when a worker polls the task queue ($DURABLE_MCP_TASK_QUEUE or durable-mcp), 4 when none does, 3 when Temporal is unreachable (a container health check)')
  .option('--task-queue <name>', 'the task queue (default: $DURABLE_MCP_TASK_QUEUE or durable-mcp)')
  .option('--json', 'machine-readable output')
  .action(async (opts: { taskQueue?: string; json?: boolean }) => {
    const c = await client();
    const taskQueue = opts.taskQueue ?? process.env.DURABLE_MCP_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    const polls = await c.workerPolls(taskQueue);
    print(!!opts.json, { taskQueue, workerPolls: polls === true }, () => (polls ? `a worker polls task queue "${taskQueue}"` : `no worker polls task queue "${taskQueue}"`));
    if (!polls) process.exitCode = EXIT.NO_WORKER;
  });

program
  .command('temporal')
  .description('Run the Temporal CLI this package uses (the one `dev` runs), e.g. `durable-mcp temporal workflow list`')
  .helpOption(false)
  .passThroughOptions()
  .allowUnknownOption()
  .allowExcessArguments()
  .argument('[args...]', 'arguments for `temporal`')
  .action(async (args: string[]) => {
    const bin = findTemporalBinary('cli', { allowDownload: false, log: (line) => console.error(line) });
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(bin.path!, args, { stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
    });
    process.exitCode = code;
  });

/** The exit code and the JSON error object of a failure. */
function describeError(err: unknown): { code: number; json: Record<string, unknown>; text: string } {
  const e = err as Error;
  if (err instanceof ToolCallFailedError) return { code: EXIT.CALL_FAILED, json: err.toJSON(), text: err.message };
  if (err instanceof UsageError || err instanceof DevPortTakenError || err instanceof InboxTokenRequiredError || err instanceof InboxOptionError || (err as { name?: string })?.name === 'InvalidDurationError') return { code: EXIT.USAGE, json: { error: 'Usage', message: e.message }, text: e.message };
  if (err instanceof TemporalUnreachableError) return { code: EXIT.TEMPORAL_UNREACHABLE, json: { error: 'TemporalUnreachable', message: e.message, address: err.address }, text: e.message };
  const grpc = (err as { code?: unknown }).code;
  if (grpc === 14 || /\b14 UNAVAILABLE\b/.test(String(e?.message))) return { code: EXIT.TEMPORAL_UNREACHABLE, json: { error: 'TemporalUnreachable', message: e.message }, text: `cannot reach Temporal: ${e.message}` };
  if (err instanceof NoWorkerError) return { code: EXIT.NO_WORKER, json: { error: 'NoWorker', message: e.message, workflowId: err.workflowId, taskQueue: err.taskQueue }, text: e.message };
  if (err instanceof UpdateLimitError) return { code: EXIT.REFUSED, json: { error: 'UpdateLimit', message: e.message }, text: e.message };
  if (err instanceof AnswerRejectedError) return { code: EXIT.REFUSED, json: err.toJSON(), text: e.message };
  if (err instanceof UnknownWorkflowError || err instanceof WorkflowClosedError || err instanceof SearchAttributeNotRegisteredError) {
    return { code: EXIT.REFUSED, json: { error: e.name.replace(/Error$/, ''), message: e.message }, text: e.message };
  }
  const message = causeMessages(err) || String(err);
  return { code: EXIT.OTHER, json: { error: e?.name ?? 'Error', message }, text: `${e?.name ?? 'Error'}: ${message}` };
}

const wantsJson = process.argv.includes('--json');
/** The commands that run until stopped print JSON lines (one object a line), an error included. */
const streams = ['dev', 'worker', 'inbox'].includes(process.argv[2] ?? '');
program.parseAsync(process.argv).then(
  () => {
    // Connections keep the event loop alive; commands other than dev/worker are done here.
    const cmd = process.argv[2];
    if (cmd !== 'dev' && cmd !== 'worker' && cmd !== 'inbox') process.exit(process.exitCode ?? EXIT.OK);
  },
  (err: unknown) => {
    if (err instanceof CommanderError) {
      // Commander already printed the message (or the help) on stderr; --help and --version exit 0.
      if (err.exitCode !== 0 && wantsJson) {
        const json = { error: 'Usage', message: err.message.replace(/^error: /, '') };
        console.log(streams ? JSON.stringify({ event: 'error', ...json }) : JSON.stringify(json, null, 2));
      }
      process.exit(err.exitCode === 0 ? EXIT.OK : EXIT.USAGE);
    }
    const d = describeError(err);
    if (wantsJson) console.log(streams ? JSON.stringify({ event: 'error', ...d.json }) : JSON.stringify(d.json, null, 2));
    console.error(`durable-mcp: ${terminalSafe(d.text)}`);
    process.exit(d.code);
  },
);
