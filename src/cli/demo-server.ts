#!/usr/bin/env node
/**
 * The demo MCP server that `durable-mcp dev` starts (stdio). It speaks the current MCP era (2026-07-28,
 * written with `@modelcontextprotocol/server` v2): its tools ask a person with multi round-trip requests
 * (an `input_required` result; the client calls again with the answers), in form mode and in URL mode, so
 * a newcomer can watch a tool call wait for a human and answer it. Nothing is held while the person thinks.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** The person's answer to one question, as the client sends it back. */
type InputResponse = { action?: string; content?: Record<string, unknown> };
type Responses = Record<string, InputResponse> | undefined;
interface Ctx {
  mcpReq: { inputResponses?: Record<string, unknown>; requestState: () => unknown };
}

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
/** The answer the client sent for the question `key` of the previous round, if any. */
const answerTo = (ctx: Ctx, key: string) => (ctx.mcpReq.inputResponses as Responses)?.[key];
/** One question of a round: an elicitation in form or URL mode. */
const elicit = (params: Record<string, unknown>) => ({ method: 'elicitation/create', params });
/** An `input_required` result: the questions of this round (key → elicitation) and the state to echo. */
const ask = (inputRequests: Record<string, unknown>, requestState?: string): any => ({
  resultType: 'input_required',
  inputRequests,
  ...(requestState !== undefined ? { requestState } : {}),
});

/** A tool of one round: the first call asks the question `key`; the call with its answer replies in text. */
function oneRoundTool<A>(
  server: McpServer,
  tool: {
    name: string;
    description: string;
    inputSchema: z.ZodType;
    key: string;
    question: (args: A) => Record<string, unknown>;
    reply: (args: A, answer: InputResponse) => string;
  },
): void {
  const { name, description, inputSchema, key, question, reply } = tool;
  server.registerTool(name, { description, inputSchema }, (async (args: A, ctx: Ctx) => {
    const answer = answerTo(ctx, key);
    return answer ? text(reply(args, answer)) : ask({ [key]: elicit(question(args)) });
  }) as any);
}

function factory(): McpServer {
  const server = new McpServer({ name: 'durable-mcp-demo', version: '0.2.0' }, { capabilities: { tools: {} } });

  oneRoundTool(server, {
    name: 'book_table',
    description: 'Book a restaurant table. Asks the human for the details (form elicitation, one round).',
    inputSchema: z.object({ restaurant: z.string().default('Chez Temporal') }),
    key: 'booking',
    question: ({ restaurant }: { restaurant: string }) => ({
      mode: 'form',
      message: `Booking a table at ${restaurant}. Who is coming, and when?`,
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name on the booking', minLength: 1 },
          guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12 },
          date: { type: 'string', format: 'date', title: 'Date' },
          seating: {
            type: 'string',
            title: 'Seating',
            oneOf: [
              { const: 'inside', title: 'Inside' },
              { const: 'terrace', title: 'Terrace' },
            ],
            default: 'inside',
          },
        },
        required: ['name', 'guests', 'date'],
      },
    }),
    reply: ({ restaurant }, booking) => {
      if (booking.action !== 'accept') return `No booking (${booking.action}).`;
      const c = booking.content ?? {};
      return `Booked ${restaurant} for ${String(c.guests)} on ${String(c.date)} under "${String(c.name)}" (${String(c.seating ?? 'inside')}).`;
    },
  });

  server.registerTool(
    'plan_trip',
    {
      description: 'Plan a trip in two rounds: where to, then a question that depends on the first answer (the state rides requestState).',
      inputSchema: z.object({}),
    },
    (async (_args: unknown, ctx: Ctx) => {
      const r = ctx.mcpReq.inputResponses as Responses;
      const state = ctx.mcpReq.requestState();
      if (typeof state !== 'string') {
        const where = r?.where;
        if (!where) {
          return ask({
            where: elicit({
              mode: 'form',
              message: 'Where to?',
              requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City', minLength: 1 } }, required: ['city'] },
            }),
          });
        }
        if (where.action !== 'accept') return text(`No trip (${where.action}).`);
        const city = String(where.content?.city);
        return ask(
          {
            nights: elicit({
              mode: 'form',
              message: `How many nights in ${city}?`,
              requestedSchema: { type: 'object', properties: { nights: { type: 'integer', minimum: 1, maximum: 30 } }, required: ['nights'] },
            }),
          },
          JSON.stringify({ city }),
        );
      }
      const { city } = JSON.parse(state) as { city: string };
      const nights = r?.nights;
      if (nights?.action !== 'accept') return text(`No trip to ${city} (${nights?.action ?? 'cancel'}).`);
      return text(`Planned ${String(nights.content?.nights)} nights in ${city}.`);
    }) as any,
  );

  oneRoundTool(server, {
    name: 'connect_account',
    description: 'Connect a (pretend) third-party account. Sends the human to a URL (URL-mode elicitation).',
    inputSchema: z.object({ provider: z.string().default('example') }),
    key: 'login',
    question: ({ provider }: { provider: string }) => ({
      mode: 'url',
      message: `Sign in to ${provider} to connect your account.`,
      url: `https://${provider}.example/oauth/authorize?state=${randomUUID()}`,
    }),
    reply: ({ provider }, login) => (login.action === 'accept' ? `Connected to ${provider}.` : `Not connected (${login.action}).`),
  });

  server.registerTool('add', { description: 'Add two numbers (no elicitation).', inputSchema: z.object({ a: z.number(), b: z.number() }) }, (async ({
    a,
    b,
  }: {
    a: number;
    b: number;
  }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } })) as any);
  return server;
}

serveStdio(factory as any);
process.stdin.on('end', () => process.exit(0));
