// The MCP server of the tests, scripted: two tools, one of which asks a person.
import { scriptedServer } from 'durable-mcp/testing';

export const who = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Name' }, guests: { type: 'integer', minimum: 1, maximum: 12 } },
  required: ['name', 'guests'],
};

export function diner(era) {
  return scriptedServer({
    era,
    tools: {
      find_table: async ({ restaurant }) => `table 7 at ${restaurant}`,
      book_table: async ({ table }, { ask }) => {
        const r = await ask({ message: `Who is coming to ${table}?`, requestedSchema: who });
        if (r.action !== 'accept') return `not booked (${r.action})`;
        return `${table} booked for ${r.content.guests} under ${r.content.name}`;
      },
    },
  });
}
