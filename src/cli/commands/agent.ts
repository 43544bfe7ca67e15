/**
 * `agent <model>`: start the workflow `mcpAgent` (docs/agents.md) and follow it: each request its tools ask (a question,
 * an approval, a sign-in) is printed with the command that answers it (`answer`, `decline`, from another terminal or
 * the inbox), and the agent's final text when it finishes. The worker that runs it is yours: both plugins
 * (DurableMcpPlugin and @temporalio/ai-sdk's AiSdkPlugin) and `mcpAgent` exported from its workflows module.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Request } from '../../contract/index.js';
import { DEFAULT_TASK_QUEUE } from '../../contract/message-names.js';
import { terminalSafe, terminalText } from '../terminal.js';
import { client, EXIT, positiveInt, print, UsageError } from './common.js';

interface AgentOptions {
  server: string[];
  prompt?: string;
  system?: string;
  maxSteps?: number;
  tools?: string[];
  needsApproval?: string[] | boolean;
  workflowId?: string;
  follow: boolean;
  json?: boolean;
}

/** What a person reads about a request, and how they answer it. */
function requestLines(workflowId: string, r: Request): string[] {
  const id = terminalSafe(r.id);
  const wid = terminalSafe(workflowId);
  return [
    `asks (${r.kind}): ${terminalText(r.prompt)}${r.url ? ` ${terminalSafe(r.url)}` : ''}`,
    `  answer:  npx durable-mcp answer ${wid} ${id}${r.data ? " --data '{…}'" : ''}`,
    `  decline: npx durable-mcp decline ${wid} ${id}`,
  ];
}

export function agentCommand(program: Command): void {
  program
    .command('agent <model>')
    .description("Start an agent (the mcpAgent workflow, on a worker with AiSdkPlugin) with the MCP servers' tools, and follow it")
    .requiredOption('--server <name...>', "servers of the worker's MCP config whose tools the model may call")
    .option('--prompt <text>', 'what the agent is asked to do')
    .option('--system <text>', 'instructions to the model')
    .option('--max-steps <n>', 'most model calls (default 20)', positiveInt('--max-steps'))
    .option('--tools <name...>', 'only these tools (server_tool)')
    .option('--needs-approval [name...]', 'a person approves these tools (all, without names) before they run')
    .option('--workflow-id <id>', 'workflow id (default: generated)')
    .option('--no-follow', 'print the workflow id at once, without following the agent')
    .option('--json', 'machine-readable output (one JSON object a line while following)')
    .action(async (model: string, opts: AgentOptions) => {
      if (opts.prompt === undefined) throw new UsageError('agent: --prompt is required (what the agent is asked to do)');
      const c = await client();
      const workflowId = opts.workflowId ?? `agent-${randomUUID()}`;
      const handle = await c.client.workflow.start('mcpAgent', {
        taskQueue: c.options.taskQueue ?? DEFAULT_TASK_QUEUE,
        workflowId,
        args: [
          {
            prompt: opts.prompt,
            servers: opts.server,
            model,
            ...(opts.system !== undefined ? { system: opts.system } : {}),
            ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
            ...(opts.tools ? { tools: opts.tools } : {}),
            ...(opts.needsApproval !== undefined ? { needsApproval: opts.needsApproval } : {}),
          },
        ],
      });
      const json = !!opts.json;
      if (!opts.follow) return print(json, { workflowId }, () => workflowId);
      if (!json) console.error(`started ${workflowId}: following it (Ctrl-C stops following; the agent goes on)`);
      else console.log(JSON.stringify({ workflowId }));
      let finished = false;
      const result = handle.result().finally(() => (finished = true));
      const seen: string[] = [];
      // The requests as they come, until the agent finishes.
      const watch = (async () => {
        while (!finished) {
          const pending = await c.waitForPending(workflowId, { seen, timeoutMs: 10_000 }).catch(() => [] as Request[]);
          for (const r of pending) {
            if (seen.includes(r.id)) continue;
            seen.push(r.id);
            if (json) console.log(JSON.stringify({ request: r }));
            else for (const line of requestLines(workflowId, r)) console.error(line);
          }
        }
      })();
      try {
        const r = (await result) as { text: string; steps: number; toolCalls: unknown[] };
        print(json, { result: r }, () => terminalText(r.text));
      } catch (err) {
        process.exitCode = EXIT.CALL_FAILED;
        throw err;
      } finally {
        finished = true;
        void watch;
      }
    });
}
