/** `call` (start a tool call, with `--wait` its result) and `result` (wait for a call's result, with a progress bar on a terminal). */
import type { Command } from 'commander';
import { isClientError, type DurableMcpClient } from '../../client/index.js';
import type { ToolResult } from '../../contract/index.js';
import { requestWithCommands } from '../answer-commands.js';
import { terminalSafe, terminalText } from '../terminal.js';
import { client, duration, EXIT, jsonObject, positiveInt, positiveSeconds, print } from './common.js';

/**
 * Wait for a call's (or an agent's) result, saying so on stderr; on a terminal, a progress bar from the workflow's
 * `progress` query (MCP progress notifications of the tool) is drawn until the result arrives. Each request that waits
 * for a person is named on stderr with the command that answers it; a workflow whose task fails ends the wait (exit 4).
 */
async function waitForResult(c: DurableMcpClient, workflowId: string, json: boolean): Promise<ToolResult> {
  const tty = !json && process.stderr.isTTY === true;
  if (!json) console.error(`waiting for the result of ${terminalSafe(workflowId)} (Ctrl-C stops waiting; the call goes on)`);
  let done = false;
  let drawn = false;
  const clearBar = () => {
    if (drawn) process.stderr.write('\r\x1b[2K');
  };
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
      // The message is the server's: its control characters escaped (a bar's line holds no newline, ESC or bidi of its).
      const message = typeof p.message === 'string' && p.message !== '' ? ` ${terminalSafe(p.message.slice(0, 60))}` : '';
      process.stderr.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${terminalSafe(count)}${message}`);
      drawn = true;
    }
  })();
  // The requests that wait for a person, each once, with the command that answers it (stderr: stdout stays the result;
  // with --json nothing is printed, but a failing workflow task ends the wait all the same).
  const watch = (async (): Promise<never> => {
    const seen = new Set<string>();
    const quiet = json;
    let saidNoWorker = false;
    for (;;) {
      if (done) return new Promise<never>(() => undefined);
      try {
        for (const { request, context } of await c.pendingDetails(workflowId, { timeoutMs: 10_000 })) {
          if (seen.has(request.id) || done || quiet) continue;
          seen.add(request.id);
          clearBar();
          console.error(['it waits for a person:', ...requestWithCommands(workflowId, request, context)].join('\n'));
        }
      } catch (err) {
        // A failing workflow task never ends by itself: say why, and stop waiting (exit 4).
        if (isClientError(err, 'WorkflowTaskFailing')) throw err;
        if (isClientError(err, 'NoWorker') && !saidNoWorker && !quiet && !done) {
          saidNoWorker = true;
          clearBar();
          console.error(`durable-mcp: ${terminalSafe(err.message)}; still waiting`);
        }
      }
      await new Promise((r) => setTimeout(r, 1_500));
    }
  })();
  try {
    return await Promise.race([c.result(workflowId), watch]);
  } finally {
    done = true;
    clearBar();
    void bar;
  }
}

/** The text of a result: a tool call's output, or an agent's final text (`mcpAgent` returns `{ text, steps, toolCalls, … }`). */
function resultText(result: ToolResult | { text?: unknown }): string {
  if ('output' in result && typeof result.output === 'string') return terminalText(result.output);
  if ('text' in result && typeof result.text === 'string') return terminalText(result.text);
  return terminalText(JSON.stringify(result) ?? '');
}

export function callCommand(program: Command): void {
  program
    .command('call <server> <tool>')
    .description('Start a tool call (the mcpToolCall workflow); prints its workflow id, or with --wait its result')
    .option('--args <json>', 'tool arguments: a JSON object, or @file to read it from a file', jsonObject('--args'))
    .option('--workflow-id <id>', 'workflow id (default: generated)')
    .option(
      '--expires-in <duration>',
      'how long a request may wait for an answer: ms, or "4s", "24h", "1 day" (default 24h)',
      duration('--expires-in', 'elicitation.expiresIn'),
    )
    .option('--hold-for <duration>', 'how long a waiting call holds its MCP session (default 3m)', duration('--hold-for', 'elicitation.holdFor'))
    .option('--tool-timeout <duration>', 'timeout of one tools/call (default 1h)', duration('--tool-timeout', 'toolTimeout'))
    .option('--heartbeat-timeout <duration>', 'how fast a dead worker is noticed (default 30s)', duration('--heartbeat-timeout', 'heartbeatTimeout'))
    .option('--max-attempts <n>', 'attempts before the call fails (default 10)', positiveInt('--max-attempts'))
    .option('--ask-approval', 'a person approves this call before the tool runs, whatever the policy (docs/approvals.md)')
    .option('--assignee <user>', "who may answer the call's requests: a user's email or subject; repeat for more (docs/people.md)", collect, [])
    .option('--role <role>', "a role that may answer the call's requests; repeat for more (docs/people.md)", collect, [])
    .option('--approvals <n>', 'N of M: how many distinct people must accept each request (docs/people.md)', positiveInt('--approvals'))
    .option('--wait', 'wait for the result and print it (a progress bar on a terminal)')
    .option('--no-wait-start', "print the workflow id at once, without waiting (up to 2 s) for the first attempt's outcome")
    .option('--first-wait <seconds>', "how long to wait for the first attempt's outcome (default 2, at most 600)", positiveSeconds('--first-wait'))
    .option('--json', 'machine-readable output')
    .action(
      async (
        server: string,
        tool: string,
        opts: {
          args?: Record<string, unknown>;
          workflowId?: string;
          expiresIn?: number | string;
          holdFor?: number | string;
          toolTimeout?: number | string;
          heartbeatTimeout?: number | string;
          maxAttempts?: number;
          askApproval?: boolean;
          assignee: string[];
          role: string[];
          approvals?: number;
          wait?: boolean;
          waitStart: boolean;
          firstWait?: number;
          json?: boolean;
        },
      ) => {
        const c = await client();
        const elicitation =
          opts.expiresIn !== undefined || opts.holdFor !== undefined ? { expiresIn: opts.expiresIn as any, holdFor: opts.holdFor as any } : undefined;
        const handle = await c.startToolCall({
          server,
          tool,
          arguments: opts.args,
          workflowId: opts.workflowId,
          elicitation,
          ...(opts.toolTimeout !== undefined ? { toolTimeout: opts.toolTimeout as any } : {}),
          ...(opts.heartbeatTimeout !== undefined ? { heartbeatTimeout: opts.heartbeatTimeout as any } : {}),
          ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
          ...(opts.askApproval ? { approval: 'always' as const } : {}),
          ...(opts.assignee.length > 0 || opts.role.length > 0
            ? { assignees: { ...(opts.assignee.length > 0 ? { users: opts.assignee } : {}), ...(opts.role.length > 0 ? { roles: opts.role } : {}) } }
            : {}),
          ...(opts.approvals !== undefined ? { approvals: opts.approvals } : {}),
        });
        const id = handle.workflowId;
        if (!opts.wait && !opts.waitStart) return print(!!opts.json, { workflowId: id }, () => id);
        if (!opts.wait) {
          // What can be known at the first attempt fails the command now (a failed call throws: exit 1), not at `result`.
          const first = await c.firstAttempt(id, opts.firstWait !== undefined ? { timeoutMs: opts.firstWait * 1000 } : {});
          if (first.state === 'completed' && first.result.isError) {
            print(!!opts.json, { workflowId: id, ...first.result }, () => id);
            if (!opts.json) console.error(`durable-mcp: ${server}/${tool} returned an error: ${terminalText(first.result.output).split('\n')[0]}`);
            process.exitCode = EXIT.CALL_FAILED;
            return;
          }
          print(!!opts.json, { workflowId: id, state: first.state }, () => id);
          if (opts.json) return;
          if (first.state === 'no-worker')
            console.error(
              `durable-mcp: no worker polls task queue "${first.taskQueue}" yet: the call runs when one starts (npm start, or npx durable-mcp worker)`,
            );
          if (first.state === 'retrying')
            console.error(
              `durable-mcp: attempt ${first.attempt - 1} failed and is retried (${terminalSafe(first.failure)}); see how it ends: npx durable-mcp result ${id}`,
            );
          return;
        }
        if (!opts.json) console.error(`started ${handle.workflowId} (answer its requests from another terminal: npx durable-mcp pending ${handle.workflowId})`);
        const result = await waitForResult(c, handle.workflowId, !!opts.json);
        print(!!opts.json, { workflowId: handle.workflowId, ...result }, () => resultText(result));
        if (result.isError) process.exitCode = EXIT.CALL_FAILED;
      },
    );
}

export function resultCommand(program: Command): void {
  program
    .command('result <workflowId>')
    .description("Wait for a tool call's result (or an agent's) and print its output or the agent's text (a failed call prints its cause)")
    .option('--json', 'machine-readable output')
    .action(async (workflowId: string, opts: { json?: boolean }) => {
      const c = await client();
      const result = await waitForResult(c, workflowId, !!opts.json);
      print(!!opts.json, result, () => resultText(result));
      if (result.isError) process.exitCode = EXIT.CALL_FAILED;
    });
}

/** A repeatable option's values, in order. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
