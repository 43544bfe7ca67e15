// The MCP server of the tests, scripted: a tool that asks a person, and a tool that moves money (the agent asks a
// person to approve it first).
import { scriptedServer } from 'durable-mcp/testing';

export function bank() {
  return scriptedServer({
    tools: {
      ask_budget: async (_args, { ask }) => {
        const r = await ask({
          message: 'How much may the assistant spend?',
          requestedSchema: { type: 'object', properties: { amount: { type: 'integer', minimum: 1 } }, required: ['amount'] },
        });
        return r.action === 'accept' ? `budget: ${r.content.amount}` : `no budget (${r.action})`;
      },
      transfer: async ({ to, amount }) => `sent ${amount} to ${to}`,
    },
  });
}
