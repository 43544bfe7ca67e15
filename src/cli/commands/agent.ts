/**
 * `agent <model>`: start the workflow `mcpAgent` (docs/agents.md) and follow it: each request its tools ask (a question,
 * an approval, a sign-in) is printed with the command that answers it (`answer`, `decline`, from another terminal or
 * the inbox), and the agent's final text when it finishes. The worker that runs it is yours: both plugins
 * (DurableMcpPlugin and @temporalio/ai-sdk's AiSdkPlugin) and `mcpAgent` exported from its workflows module. With no
 * worker on the task queue nothing is started; a worker without `mcpAgent` fails the workflow's first task at once, and
 * `agent` then terminates the workflow it started and says so (exit 4), within seconds.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { doesNotRun, missingWorkflowType, workflowTaskFailing } from '../../client/errors.js';
import { ClientError, ClientErrorCodes, type DurableMcpClient } from '../../client/index.js';
import { failingWorkflowTask, firstWorkflowTask } from '../../client/workers.js';
import type { Request } from '../../contract/index.js';
import { DEFAULT_TASK_QUEUE } from '../../contract/message-names.js';
import { requestWithCommands } from '../answer-commands.js';
import { terminalText } from '../terminal.js';
import { client, positiveInt, print, UsageError } from './common.js';

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
      const taskQueue = c.options.taskQueue ?? DEFAULT_TASK_QUEUE;
      const workflowId = opts.workflowId ?? `agent-${randomUUID()}`;
      if ((await c.workerPolls(taskQueue)) === false)
        throw new ClientError(
          ClientErrorCodes.NoWorker,
          `no worker polls task queue "${taskQueue}": the agent was not started. ` +
            'Start one that runs mcpAgent: `npm start` in a clone, `npx durable-mcp dev`, or `npx durable-mcp worker --agent`',
          { taskQueue, detail: 'no worker has polled its task queue recently' },
        );
      const handle = await c.client.workflow.start('mcpAgent', {
        taskQueue,
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
      // A worker without mcpAgent fails the first workflow task at once, then Temporal retries it forever (no event):
      // read the history for up to 10 s rather than wait for a result that never comes.
      const first = await firstWorkflowTask(c.client, workflowId);
      if (first.state === 'failed') {
        const missing = missingWorkflowType(first.message);
        if (missing === undefined) throw workflowTaskFailing(workflowId, taskQueue, 'run the agent', 1, first.message);
        await handle.terminate(`durable-mcp agent: the worker on task queue "${taskQueue}" does not run the workflow ${missing}`).catch(() => undefined);
        throw new ClientError(
          ClientErrorCodes.WorkflowTaskFailing,
          `workflow "${workflowId}": ${doesNotRun(taskQueue, missing)}. ` +
            `The workflow was terminated (nothing ran); start the agent again once such a worker runs. (The worker said: ${first.message})`,
          { workflowId, taskQueue, attempt: 1, detail: first.message },
        );
      }
      if (first.state === 'waiting' && !opts.json)
        console.error(`durable-mcp: no worker has taken ${workflowId} within 10 s (a busy worker?): the agent runs when one does`);
      const json = !!opts.json;
      if (!opts.follow) return print(json, { workflowId }, () => workflowId);
      if (!json) console.error(`started ${workflowId}: following it (Ctrl-C stops following; the agent goes on)`);
      else console.log(JSON.stringify({ workflowId }));
      let finished = false;
      const result = c.result(workflowId).finally(() => (finished = true));
      const watch = follow(c, workflowId, json, () => finished);
      try {
        const r = (await Promise.race([result, taskFails(c, workflowId, taskQueue, () => finished)])) as unknown as { text: string };
        print(json, { result: r }, () => terminalText(r.text));
      } finally {
        finished = true;
        void watch;
      }
    });
}

/**
 * Rejects with WorkflowTaskFailing (exit 4) once the agent's workflow task fails and is retried (a worker without
 * mcpAgent took it over, a deploy that broke it): Temporal would retry it forever, and the result never comes.
 */
async function taskFails(c: DurableMcpClient, workflowId: string, taskQueue: string, done: () => boolean): Promise<never> {
  for (;;) {
    await new Promise((r) => setTimeout(r, 3_000));
    if (done()) return new Promise<never>(() => undefined);
    const failing = await failingWorkflowTask(c.client, workflowId);
    if (failing && !done()) throw workflowTaskFailing(workflowId, taskQueue, 'go on with the agent', failing.attempt, failing.message);
  }
}

/**
 * Print each request the agent asks as it comes (the model's proposal: server/tool and, for an approval, its arguments),
 * with the commands that answer it, until `done()`.
 */
async function follow(c: DurableMcpClient, workflowId: string, json: boolean, done: () => boolean): Promise<void> {
  const seen: string[] = [];
  while (!done()) {
    let pending: Request[];
    try {
      pending = await c.waitForPending(workflowId, { seen, timeoutMs: 10_000 });
    } catch {
      // A closed run or a moment without a worker: look again shortly (never a busy loop).
      await new Promise((r) => setTimeout(r, 1_000));
      continue;
    }
    const fresh = pending.filter((r) => !seen.includes(r.id));
    // Printed even when the agent has just finished: a follower sees every request the agent asked.
    if (fresh.length === 0) continue;
    const details = await c.pendingDetails(workflowId).catch(() => []);
    for (const r of fresh) {
      seen.push(r.id);
      const context = details.find((d) => d.request.id === r.id)?.context;
      if (json) console.log(JSON.stringify({ request: r, ...(context ? { context } : {}) }));
      else for (const line of requestWithCommands(workflowId, r, context)) console.error(line);
    }
  }
}
