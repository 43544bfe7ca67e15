/**
 * The commands that answer a pending request, as `agent` (while following) and `result` (while it waits) print them
 * under the request, each one that works when pasted into a shell: an approval is accepted with `answer` and no
 * `--data` (the proposed arguments), a URL-mode request after the visit, a form with `--data` holding an example
 * answer valid for its schema (its defaults, first choices, and a value of each required field's type). Everything
 * from the MCP server (the schema's names, defaults and choices) is escaped for the terminal (src/cli/terminal.ts).
 */
import type { Request } from '../contract/index.js';
import type { PendingContext } from '../workflows/messages.js';
import { pendingEntryLines, terminalSafe } from './terminal.js';

type Field = Record<string, unknown>;

/** A word the shell takes as it is; anything else goes in single quotes. */
const SHELL_BARE = /^[\w.@:/+,=-]+$/;
export function shellQuote(text: string): string {
  return SHELL_BARE.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The first choice of an enum (or oneOf/anyOf of consts) field, else undefined. */
function firstChoice(field: Field): unknown {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = field[key];
    if (Array.isArray(branches) && branches.length > 0) return (branches[0] as { const?: unknown } | null)?.const;
  }
  return Array.isArray(field.enum) && field.enum.length > 0 ? field.enum[0] : undefined;
}

/** A string of the field's format and lengths (a date or date-time: `now`, to the second). */
function exampleString(field: Field, now: Date): string {
  const today = now.toISOString().replace(/\.\d+Z$/, 'Z');
  const byFormat: Record<string, string> = {
    date: today.slice(0, 10),
    'date-time': today,
    email: 'ada@example.com',
    uri: 'https://example.com/',
  };
  let text = typeof field.format === 'string' ? (byFormat[field.format] ?? 'text') : 'text';
  const min = typeof field.minLength === 'number' ? Math.min(field.minLength, 1_000) : 0;
  while (text.length < min) text += 'x';
  const max = typeof field.maxLength === 'number' ? field.maxLength : Infinity;
  return text.length > max ? text.slice(0, Math.max(0, max)) : text;
}

/** An example value of one field: its default, its first choice, else a value of its type within its bounds. */
function exampleValue(field: Field, now: Date): unknown {
  if (field.default !== undefined) return field.default;
  if (field.const !== undefined) return field.const;
  const choice = firstChoice(field);
  if (choice !== undefined) return choice;
  switch (field.type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'number': {
      const min = typeof field.minimum === 'number' ? field.minimum : typeof field.exclusiveMinimum === 'number' ? field.exclusiveMinimum + 1 : 0;
      return field.type === 'integer' ? Math.ceil(min) : min;
    }
    case 'array': {
      const items = field.items && typeof field.items === 'object' ? (field.items as Field) : {};
      const first = firstChoice(items);
      const n = typeof field.minItems === 'number' ? Math.min(field.minItems, 10) : 0;
      return Array.from({ length: n }, () => first ?? exampleValue(items, now));
    }
    default:
      return exampleString(field, now);
  }
}

/**
 * An example answer to a form: each field with a default, and each required field (its first choice, else a value of
 * its type). Only what a form can hold (MCP's flat object of primitives and enum arrays).
 */
export function exampleData(schema: unknown, now = new Date()): Record<string, unknown> {
  const s = schema as { properties?: Record<string, Field>; required?: unknown } | undefined;
  const out: Record<string, unknown> = {};
  if (!s?.properties || typeof s.properties !== 'object') return out;
  const required = Array.isArray(s.required) ? s.required : [];
  for (const [name, field] of Object.entries(s.properties).slice(0, 100)) {
    if (!field || typeof field !== 'object') continue;
    if (required.includes(name) || field.default !== undefined) out[name] = exampleValue(field, now);
  }
  return out;
}

/** The lines that say how to answer `request`: an approval, a URL-mode request, a form, or a plain confirmation. */
export function answerCommandLines(workflowId: string, request: Request, context?: PendingContext, now = new Date()): string[] {
  const wid = terminalSafe(shellQuote(workflowId));
  const rid = terminalSafe(shellQuote(request.id));
  const answer = `npx durable-mcp answer ${wid} ${rid}`;
  const decline = `    decline: npx durable-mcp decline ${wid} ${rid}`;
  if (context?.approval) return [`    approve: ${answer}`, decline];
  if (request.kind === 'authorization' || request.url !== undefined)
    return [`    visit the url above, then: ${answer}`, `    or refuse: npx durable-mcp decline ${wid} ${rid}`];
  const schema = (request.data as { schema?: unknown } | undefined)?.schema;
  if (schema === undefined) return [`    accept: ${answer}`, decline];
  const data = terminalSafe(shellQuote(JSON.stringify(exampleData(schema, now))));
  return [`    answer (with your values): ${answer} --data ${data}`, decline];
}

/** A pending request as a person reads it (`pending`'s lines when the context is known), then the commands that answer it. */
export function requestWithCommands(workflowId: string, request: Request, context?: PendingContext): string[] {
  const head = context
    ? pendingEntryLines(workflowId, request, context)
    : [`${terminalSafe(workflowId)}  ${terminalSafe(request.id)}  ${terminalSafe(request.kind)}`, `    ${terminalSafe(request.prompt.split('\n')[0] ?? '')}`];
  return [...head, ...answerCommandLines(workflowId, request, context)];
}
