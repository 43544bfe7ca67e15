/**
 * `answer`, `decline`, `cancel`: answer a pending request, through `submitAnswer` or with `--signal` the `answer` signal.
 * `pending` is src/cli/commands/pending.ts.
 */
import type { Command } from 'commander';
import { SIGNAL_HINT } from '../../client/client.js';
import { isClientError, type DurableMcpClient } from '../../client/index.js';
import { noWorker, workflowTaskFailing } from '../../client/errors.js';
import type { Answer } from '../../contract/index.js';
import { userInfo } from 'node:os';
import { terminalSafe } from '../terminal.js';
import type { SubmitAnswerResult } from '../../workflows/messages.js';
import { client, EXIT, jsonObject, print, UsageError } from './common.js';
import { pendingCommand } from './pending.js';

/** The pending requests `answer` checks before it sends (a URL-mode request takes no --data); no worker: said as what `answer` could not do. */
async function pendingForAnswer(c: DurableMcpClient, workflowId: string) {
  try {
    return await c.pendingDetails(workflowId);
  } catch (err) {
    const what = 'take the answer';
    if (isClientError(err, 'WorkflowTaskFailing')) throw workflowTaskFailing(workflowId, err.taskQueue, what, err.attempt ?? 0, err.detail ?? '');
    if (isClientError(err, 'NoWorker')) throw noWorker(workflowId, err.taskQueue, what, err.detail ?? '', SIGNAL_HINT);
    throw err;
  }
}

/** Who answers from this command line: `--as`, else the OS user. */
function answerer(as: string | undefined): string {
  if (as !== undefined) return as;
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

/**
 * What an answer did, in words: `accept`, `decline`, `cancel`; for N of M while more people must accept,
 * `accepted (1 of 2; waiting for 1 more person)`, or, for a person who had accepted already, that it counted nothing.
 */
export function answeredText(res: SubmitAnswerResult): string {
  if (res.awaiting === undefined || res.awaiting <= 0 || res.required === undefined) return res.action;
  const accepted = res.required - res.awaiting;
  const more = `waiting for ${res.awaiting} more ${res.awaiting === 1 ? 'person' : 'people'}`;
  if (res.repeated) {
    const by = res.acceptedBy?.length ? ` (accepted by ${res.acceptedBy.join(', ')})` : '';
    return `not counted: this person has already accepted; ${accepted} of ${res.required}${by}; ${more}`;
  }
  return `accepted (${accepted} of ${res.required}; ${more})`;
}

/** `pending`, then `answer`, `decline` and `cancel`. */
export function answerCommands(program: Command): void {
  pendingCommand(program);

  function answerCommand(name: 'answer' | 'decline' | 'cancel', description: string) {
    const cmd = program
      .command(`${name} <workflowId> <requestId>`)
      .description(description)
      .option('--signal', 'send it as the durable `answer` signal: works while no worker runs; validated when a worker picks it up (check with `pending`)')
      .option('--json', 'machine-readable output')
      .option('--as <name>', "who answers, recorded beside the answer and shown in the inbox's history (default: your OS user name)");
    if (name === 'answer')
      cmd.option(
        '--data <json>',
        'the answer data, a JSON object matching the requested schema; @file reads a file, - reads stdin',
        jsonObject('--data', { stdin: true }),
      );
    cmd.action(async (workflowId: string, requestId: string, opts: { data?: Record<string, unknown>; json?: boolean; signal?: boolean; as?: string }) => {
      const c = await client();
      const answer: Answer =
        name === 'answer'
          ? { id: requestId, ok: true, ...(opts.data !== undefined ? { data: opts.data } : {}) }
          : { id: requestId, ok: false, reason: name === 'decline' ? 'declined' : 'cancelled' };
      if (opts.signal) {
        await c.signalAnswer(workflowId, answer, { by: answerer(opts.as), source: 'cli' });
        return print(
          !!opts.json,
          { id: requestId, sent: 'signal' },
          () => `${requestId}: sent as a signal; a worker validates it when it picks it up (check with: npx durable-mcp pending ${workflowId})`,
        );
      }
      if (opts.data !== undefined) {
        // A URL-mode request is answered once the person has been to the link: it carries no data.
        const request = (await pendingForAnswer(c, workflowId)).find((p) => p.request.id === requestId)?.request;
        if (request?.kind === 'authorization')
          throw new UsageError(
            `request "${requestId}" is a URL-mode (authorization) request: it takes no --data; run \`npx durable-mcp answer ${workflowId} ${requestId}\`` +
              ` once the person has completed ${request.url ?? 'the link'}`,
          );
      }
      const res = await c.submit(workflowId, answer, { by: answerer(opts.as), source: 'cli' });
      print(!!opts.json, res, () => terminalSafe(`${requestId}: ${answeredText(res)}`));
      // The same person again changed nothing: not a success (docs/cli.md).
      if (res.repeated) process.exitCode = EXIT.REFUSED;
    });
  }
  answerCommand('answer', 'Accept a pending request, with --data for a form (a URL-mode request takes none)');
  answerCommand('decline', 'Decline a pending request (the MCP server sees decline)');
  answerCommand('cancel', 'Cancel a pending request (the MCP server sees cancel)');
}
