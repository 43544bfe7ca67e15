// The project's workflows: durable-mcp's own (the worker needs them) and ours.
import { ApplicationFailure } from '@temporalio/workflow';
import { executeMcpTool } from 'durable-mcp/workflows';
export * from 'durable-mcp/workflows';

/** Find a table, then book it: the booking tool asks a person who is coming. */
export async function bookDinner({ restaurant, server = 'diner', expiresIn }) {
  const found = await executeMcpTool({ server, tool: 'find_table', arguments: { restaurant } });
  if (found.isError) throw ApplicationFailure.nonRetryable(`find_table failed: ${found.output}`);
  const booked = await executeMcpTool({
    server,
    tool: 'book_table',
    arguments: { table: found.output },
    elicitation: { expiresIn: expiresIn ?? 24 * 60 * 60 * 1000, holdFor: 2_000 },
  });
  if (booked.isError) throw ApplicationFailure.nonRetryable(`book_table failed: ${booked.output}`);
  return booked.output;
}
