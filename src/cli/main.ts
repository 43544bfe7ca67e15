#!/usr/bin/env node
/**
 * The `durable-mcp` command line: dev, inbox, codec-server, worker, call, tools, pending, answer, decline, cancel, result, health,
 * temporal, auth (one module a group under src/cli/commands/, registered in this order), the exit code and the JSON error of a failure.
 */
import { Command, CommanderError } from 'commander';
import { AnswerRejectedFailure, ClientError, ToolCallFailure } from '../client/index.js';
import { fromTemporalError } from '../client/temporal-errors.js';
import { ENCRYPTED_ENCODING, isCodecError, ENCRYPTION_KEYS_ENV, ENCRYPTION_KEYS_FILE_ENV } from '../codec/index.js';
import { causeMessages } from '../contract/causes.js';
import { isInboxError } from '../inbox/errors.js';
import { answerCommands } from './commands/answers.js';
import { authCommands } from './commands/auth.js';
import { agentCommand } from './commands/agent.js';
import { callCommand, resultCommand } from './commands/call.js';
import { EXIT, EXIT_OF, UsageError } from './commands/common.js';
import { historyCommand } from './commands/history.js';
import { operationCommands } from './commands/operations.js';
import { serveCommands } from './commands/serve.js';
import { toolsCommand } from './commands/tools.js';
import { DevPortTakenError } from './dev.js';
import { terminalSafe } from './terminal.js';

const program = new Command();
program
  .name('durable-mcp')
  .description('Run MCP tool calls as Temporal activities, with durable elicitation (human input).')
  .version('0.1.0')
  // Options after a command are that command's: `durable-mcp temporal --version` is the Temporal CLI's.
  .enablePositionalOptions()
  .exitOverride()
  // A usage error is one line, printed below with the command whose --help lists the flags (never the whole help).
  .configureOutput({ outputError: () => undefined });
serveCommands(program);
callCommand(program);
toolsCommand(program);
answerCommands(program);
historyCommand(program);
resultCommand(program);
operationCommands(program);
authCommands(program);
agentCommand(program);

/** A setting's problem, found before anything ran (by name: each plane has its own class): exit 2, as a usage error. */
const CONFIG_ERRORS = new Set(['InvalidDurationError', 'ModelProviderConfigError', 'TelemetryConfigError', 'ConnectConfigError']);

/**
 * The exit code and the JSON error object of a failure: a tool call's failure, a usage error, the client's own errors by
 * their code (EXIT_OF), and every Temporal error a person can meet, read as the client error it stands for.
 */
function describeError(err: unknown): { code: number; json: Record<string, unknown>; text: string } {
  const e = err as Error;
  if (err instanceof ToolCallFailure) return { code: EXIT.CALL_FAILED, json: err.toJSON(), text: err.message };
  if (
    err instanceof UsageError ||
    err instanceof DevPortTakenError ||
    isInboxError(err) ||
    isCodecError(err, 'TokenRequired', 'InvalidOption') ||
    CONFIG_ERRORS.has(String((err as { name?: string })?.name))
  )
    return { code: EXIT.USAGE, json: { error: 'Usage', message: e.message }, text: e.message };
  // Bad key material in DURABLE_MCP_ENCRYPTION_KEYS(_FILE): the message names the variable, never the key.
  if (isCodecError(err, 'EncryptionConfig')) return { code: EXIT.USAGE, json: { error: 'EncryptionConfig', message: e.message }, text: e.message };
  // No key where DURABLE_MCP_REQUIRE_ENCRYPTION (or the worker's config) requires one: nothing was started or written.
  if (isCodecError(err, 'EncryptionRequired')) return { code: EXIT.USAGE, json: { error: 'EncryptionRequired', message: e.message }, text: e.message };
  if (err instanceof AnswerRejectedFailure) return { code: EXIT.REFUSED, json: err.toJSON(), text: e.message };
  const known = fromTemporalError(err, { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE });
  if (known instanceof ClientError) return { code: EXIT_OF[known.code], json: known.toJSON(), text: known.message };
  const message = causeMessages(err) || String(err);
  // An encrypted payload read by a process without keys: the SDK says only "Unknown encoding".
  if (message.includes(`Unknown encoding: ${ENCRYPTED_ENCODING}`)) {
    const text = `the workflow's payloads are encrypted: set ${ENCRYPTION_KEYS_ENV} (or ${ENCRYPTION_KEYS_FILE_ENV}) to the keys that wrote them`;
    return { code: EXIT.USAGE, json: { error: 'EncryptionKeysMissing', message: text }, text };
  }
  return { code: EXIT.OTHER, json: { error: e?.name ?? 'Error', message }, text: `${e?.name ?? 'Error'}: ${message}` };
}

/**
 * Exit once stdout and stderr have handed on what they hold: `process.exit()` drops what a pipe has not taken yet,
 * and a large result (`result --json` of a 200 KiB answer) came out cut (on Node 24 at about 146 KB, 20 by luck).
 */
function exitWhenFlushed(code: number): void {
  let open = 2;
  const flushed = () => {
    if (--open === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

/** Commander's message on one line, with the `--help` that lists what the command takes. */
function usageMessage(err: CommanderError): string {
  const text = err.message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*\((.*)\)\s*$/s, (_, hint: string) => ` (${hint.charAt(0).toLowerCase()}${hint.slice(1)})`)
    .replace(/\s*\n\s*/g, ' ');
  const name = process.argv[2];
  const sub = program.commands.find((c) => c.name() === name);
  return `${text}; see: npx durable-mcp ${sub ? `${sub.name()} ` : ''}--help`;
}

const wantsJson = process.argv.includes('--json');
/** The commands that run until stopped print JSON lines (one object a line), an error included. */
const streams = ['dev', 'worker', 'inbox', 'codec-server'].includes(process.argv[2] ?? '');
program.parseAsync(process.argv).then(
  () => {
    // Connections keep the event loop alive; commands other than dev/worker are done here.
    const cmd = process.argv[2];
    if (cmd !== 'dev' && cmd !== 'worker' && cmd !== 'inbox' && cmd !== 'codec-server') exitWhenFlushed(Number(process.exitCode ?? EXIT.OK));
  },
  (err: unknown) => {
    if (err instanceof CommanderError) {
      // --help and --version (printed by commander) exit 0; a usage error is one line naming the help to read.
      if (err.exitCode === 0) {
        exitWhenFlushed(EXIT.OK);
        return;
      }
      const message = usageMessage(err);
      if (wantsJson) {
        const json = { error: 'Usage', message };
        console.log(streams ? JSON.stringify({ event: 'error', ...json }) : JSON.stringify(json, null, 2));
      }
      console.error(`durable-mcp: ${terminalSafe(message)}`);
      exitWhenFlushed(EXIT.USAGE);
      return;
    }
    const d = describeError(err);
    if (wantsJson) console.log(streams ? JSON.stringify({ event: 'error', ...d.json }) : JSON.stringify(d.json, null, 2));
    console.error(`durable-mcp: ${terminalSafe(d.text)}`);
    exitWhenFlushed(d.code);
  },
);
