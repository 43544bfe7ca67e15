#!/usr/bin/env node
/**
 * The demo MCP server that `durable-mcp dev` starts (stdio). Its tools elicit in form mode and in URL
 * mode, so a newcomer can watch a tool call wait for a human and answer it.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** Elicitations wait as long as the human needs: durable-mcp releases and re-runs, the server need not give up. */
const ELICIT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const server = new McpServer({ name: 'durable-mcp-demo', version: '0.1.0' });

server.registerTool(
  'book_table',
  {
    description: 'Book a restaurant table. Asks the human for the details (form elicitation).',
    inputSchema: { restaurant: z.string().default('Chez Temporal') },
  },
  async ({ restaurant }, extra) => {
    const result = await server.server.elicitInput(
      {
        mode: 'form',
        message: `Booking a table at ${restaurant}. Who is coming, and when?`,
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name on the booking', minLength: 1 },
            guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12 },
            date: { type: 'string', format: 'date', title: 'Date' },
            seating: { type: 'string', title: 'Seating', oneOf: [{ const: 'inside', title: 'Inside' }, { const: 'terrace', title: 'Terrace' }], default: 'inside' },
          },
          required: ['name', 'guests', 'date'],
        },
      },
      { timeout: ELICIT_TIMEOUT_MS, signal: extra.signal, relatedRequestId: extra.requestId },
    );
    if (result.action !== 'accept') return { content: [{ type: 'text', text: `No booking (${result.action}).` }] };
    const c = result.content ?? {};
    return {
      content: [{ type: 'text', text: `Booked ${restaurant} for ${c.guests} on ${c.date} under "${c.name}" (${c.seating}).` }],
    };
  },
);

server.registerTool(
  'connect_account',
  {
    description: 'Connect a (pretend) third-party account. Sends the human to a URL (URL-mode elicitation).',
    inputSchema: { provider: z.string().default('example') },
  },
  async ({ provider }, extra) => {
    const result = await server.server.elicitInput(
      {
        mode: 'url',
        message: `Sign in to ${provider} to connect your account.`,
        url: `https://${provider}.example/oauth/authorize?state=${randomUUID()}`,
        elicitationId: randomUUID(),
      },
      { timeout: ELICIT_TIMEOUT_MS, signal: extra.signal, relatedRequestId: extra.requestId },
    );
    return { content: [{ type: 'text', text: result.action === 'accept' ? `Connected to ${provider}.` : `Not connected (${result.action}).` }] };
  },
);

server.registerTool(
  'add',
  { description: 'Add two numbers (no elicitation).', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
);

const transport = new StdioServerTransport();
await server.connect(transport);
process.stdin.on('end', () => process.exit(0));
