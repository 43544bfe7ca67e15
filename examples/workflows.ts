/**
 * Example: MCP tool calls inside your own workflow, with durable elicitation.
 *
 * In your project, import from 'durable-mcp/workflows'; this example imports the source directly.
 * Register it with DurableMcpPlugin in your own worker (examples/worker.ts), or with
 * `createWorker({ workflowsPath: <this file>, mcpConfig })`: the module must also export durable-mcp's own workflows,
 * as the last line does.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { executeMcpTool, useElicitationHost } from '../src/workflows/index.js';

export interface PlanDinnerInput {
  restaurant: string;
  guests: number;
}

/**
 * Books a table (the MCP server asks a human for the details: a pending request of THIS workflow,
 * answered with `durable-mcp answer <this workflow id> <request id>` or the `answer` signal), then
 * computes something with a second tool that uses the first one's result.
 */
export async function planDinner(input: PlanDinnerInput): Promise<string> {
  // Install the `answer` / `submitAnswer` / `pending` handlers before anything else.
  useElicitationHost();
  const booking = await executeMcpTool(
    { server: 'demo', tool: 'book_table', arguments: { restaurant: input.restaurant }, elicitation: { expiresIn: 60 * 60 * 1000 } },
    { step: 'book' },
  );
  if (booking.isError) throw ApplicationFailure.nonRetryable(`booking failed: ${booking.output}`);
  const total = await executeMcpTool({ server: 'demo', tool: 'add', arguments: { a: input.guests, b: 1 } }, { step: 'count' });
  return `${booking.output} Seats needed with the host: ${JSON.parse(total.output).sum}.`;
}

export * from '../src/workflows/index.js';
