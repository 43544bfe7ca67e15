/**
 * A user's own workflows module for test/worker/plugin.test.ts: one workflow of the user's that calls MCP tools through
 * `executeMcpTool`, beside durable-mcp's workflows (the last line), as docs/workflows.md shows. A user's project imports
 * 'durable-mcp/workflows'; this repository's test imports the source.
 */
import { executeMcpTool } from '../../src/workflows/index.js';

/** Asks the guest's name through the fixture server's `ask_name` (a pending request of this workflow), then echoes the greeting. */
export async function greetGuest(room: string): Promise<string> {
  const hello = await executeMcpTool({ server: 'fx', tool: 'ask_name', arguments: {} }, { step: 'ask' });
  const echoed = await executeMcpTool({ server: 'fx', tool: 'echo', arguments: { text: `${hello.output} in ${room}` } }, { step: 'echo' });
  return echoed.output;
}

export * from '../../src/workflows/index.js';
