/** `pending` (list pending requests) and `answer`, `decline`, `cancel` (answer one, through `submitAnswer` or with `--signal` the `answer` signal). */
import type { Command } from 'commander';
import type { DurableMcpClient } from '../../client/index.js';
import type { Answer } from '../../contract/index.js';
import { pendingEntryLines, terminalSafe } from '../terminal.js';
import { NoWorkerError, SIGNAL_HINT, WorkflowTaskFailingError } from '../../client/index.js';
import { client, EXIT, jsonObject, positiveSeconds, print, UsageError } from './common.js';

/** The pending requests `answer` checks before it sends (a URL-mode request takes no --data); no worker: said as what `answer` could not do. */
async function pendingForAnswer(c: DurableMcpClient, workflowId: string) {
  try {
    return await c.pendingDetails(workflowId);
  } catch (err) {
    const what = 'take the answer';
    if (err instanceof WorkflowTaskFailingError) throw new WorkflowTaskFailingError(workflowId, err.taskQueue, what, err.attempt, err.failure);
    if (err instanceof NoWorkerError) throw new NoWorkerError(workflowId, err.taskQueue, what, err.detail, SIGNAL_HINT);
    throw err;
  }
}

export function answerCommands(program: Command): void {
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
        : (await c.listAwaitingInput()).map((w) => ({
            workflowId: w.workflowId,
            pending: w.pending,
            ...(w.unreachable ? { unreachable: w.unreachable } : {}),
          }));
      print(!!opts.json, rows, () => {
        const lines: string[] = [];
        for (const row of rows) {
          if (row.unreachable) lines.push(`${row.workflowId}  (unreachable: ${terminalSafe(row.unreachable)})`);
          // Server text is untrusted: escaped and indented for the terminal (src/cli/terminal.ts).
          for (const { request, context } of row.pending) lines.push(...pendingEntryLines(row.workflowId, request, context));
        }
        return lines.length ? lines.join('\n') : 'no pending requests';
      });
      // Nothing could be reached (every workflow awaiting input is unreachable): exit 4, as when no worker answers.
      const unreachable = rows.filter((r) => r.unreachable);
      if (rows.length > 0 && unreachable.length === rows.length) {
        process.exitCode = EXIT.NO_WORKER;
        const why = terminalSafe(unreachable[0].unreachable ?? '');
        console.error(
          `durable-mcp: no workflow awaiting input could be reached (${why}); start a worker: \`npm start\` in a clone, or \`npx durable-mcp worker\``,
        );
      }
    });

  function answerCommand(name: 'answer' | 'decline' | 'cancel', description: string) {
    const cmd = program
      .command(`${name} <workflowId> <requestId>`)
      .description(description)
      .option('--signal', 'send it as the durable `answer` signal: works while no worker runs; validated when a worker picks it up (check with `pending`)')
      .option('--json', 'machine-readable output');
    if (name === 'answer')
      cmd.option(
        '--data <json>',
        'the answer data, a JSON object matching the requested schema; @file reads a file, - reads stdin',
        jsonObject('--data', { stdin: true }),
      );
    cmd.action(async (workflowId: string, requestId: string, opts: { data?: Record<string, unknown>; json?: boolean; signal?: boolean }) => {
      const c = await client();
      const answer: Answer =
        name === 'answer'
          ? { id: requestId, ok: true, ...(opts.data !== undefined ? { data: opts.data } : {}) }
          : { id: requestId, ok: false, reason: name === 'decline' ? 'declined' : 'cancelled' };
      if (opts.signal) {
        await c.signalAnswer(workflowId, answer);
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
      const res = await c.submit(workflowId, answer);
      print(!!opts.json, res, () => `${requestId}: ${res.action}`);
    });
  }
  answerCommand('answer', 'Accept a pending request, with --data for a form (a URL-mode request takes none)');
  answerCommand('decline', 'Decline a pending request (the MCP server sees decline)');
  answerCommand('cancel', 'Cancel a pending request (the MCP server sees cancel)');
}
