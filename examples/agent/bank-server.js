#!/usr/bin/env node
// The bank, a real MCP server over stdio (mcp.json starts it as `node bank-server.js`), written with the MCP SDK:
// `ask_budget` asks a person how much the assistant may spend (MCP elicitation), `transfer` moves money (the config
// has a person approve each call first).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bank', version: '1.0.0' });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

server.registerTool(
  'ask_budget',
  { description: 'Asks the person how much the assistant may spend; returns "budget: <amount>".', inputSchema: {} },
  async () => {
    const r = await server.server.elicitInput(
      {
        message: 'How much may the assistant spend?',
        requestedSchema: { type: 'object', properties: { amount: { type: 'integer', minimum: 1 } }, required: ['amount'] },
      },
      // A person may take longer than the SDK's default minute; durable-mcp keeps the question open meanwhile.
      { timeout: 3_600_000 },
    );
    return text(r.action === 'accept' ? `budget: ${r.content.amount}` : `no budget (${r.action})`);
  },
);

server.registerTool(
  'transfer',
  {
    description: 'Sends `amount` to `to`.',
    inputSchema: { to: z.string(), amount: z.number().int().positive() },
    annotations: { destructiveHint: true },
  },
  async ({ to, amount }) => text(`sent ${amount} to ${to}`),
);

await server.connect(new StdioServerTransport());
