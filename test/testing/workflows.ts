// A user's workflows module, as the testing page (docs/testing.md) shows it: durable-mcp's workflows plus the user's own.
import { ApplicationFailure } from '@temporalio/workflow';
import { executeMcpTool } from '../../src/workflows/index.js';
export * from '../../src/workflows/index.js';

/** Looks a restaurant up, then books it (the booking asks a person who is coming); fails when a tool fails. */
export async function bookDinner(input: { server: string; restaurant: string; expiresIn?: number }): Promise<string> {
  const found = await executeMcpTool({ server: input.server, tool: 'find', arguments: { restaurant: input.restaurant } });
  if (found.isError) throw ApplicationFailure.nonRetryable(`find failed: ${found.output}`, 'ToolFailed');
  const booked = await executeMcpTool({
    server: input.server,
    tool: 'book',
    arguments: { table: found.output },
    elicitation: { expiresIn: input.expiresIn, holdFor: 1_000 },
    maxAttempts: 1,
  });
  if (booked.isError) throw ApplicationFailure.nonRetryable(`book failed: ${booked.output}`, 'ToolFailed');
  return booked.output;
}
