/**
 * Text from an MCP server (prompts, field names, URLs) printed to a terminal (issue #16). It is untrusted:
 * control characters are shown as visible escapes, never sent raw (no title changes, erased lines,
 * planted hyperlinks or bidi tricks), and a multi-line prompt is indented so none of its lines can pass
 * for an entry or a detail line of `durable-mcp pending`. `--json` output is JSON.stringify's, exact.
 */
import { assigneesLine } from '../contract/assignees.js';
import { callerLine } from '../contract/nexus.js';
import { escapeControlChars } from '../contract/control-chars.js';
import type { Request } from '../contract/index.js';
import type { PendingContext } from '../workflows/messages.js';

/** One line of text with every control character shown as an escape (`\e`, `\r`, `\x07`-style, `\u{202e}`). */
export function terminalSafe(text: string, keep = ''): string {
  return escapeControlChars(text, keep);
}

/** Multi-line text (a tool's output): line breaks and tabs kept, every other control character escaped. */
export function terminalText(text: string): string {
  return terminalSafe(text, '\n\t');
}

const DETAIL = '    ';
/** Continuation lines of a prompt: deeper than any detail line, and marked. */
const CONTINUATION = '    | ';

/**
 * The lines of one pending request in `durable-mcp pending`: an entry line (workflow id, request id, kind,
 * server/tool), then detail lines indented by four spaces: the prompt (each further line of it behind
 * `    | `), the URL and its host, the fields (names quoted), the expiry.
 */
export function pendingEntryLines(workflowId: string, request: Request, context: PendingContext): string[] {
  const lines: string[] = [];
  const step = context.step !== undefined ? ` (step ${terminalSafe(context.step)})` : '';
  lines.push(
    `${terminalSafe(workflowId)}  ${terminalSafe(request.id)}  ${terminalSafe(request.kind)}` +
      `  ${terminalSafe(context.server)}/${terminalSafe(context.tool)}${step}`,
  );
  const [first, ...rest] = request.prompt.split('\n');
  lines.push(`${DETAIL}${terminalSafe(first)}`);
  for (const line of rest) lines.push(`${CONTINUATION}${terminalSafe(line)}`);
  if (request.url !== undefined)
    lines.push(`${DETAIL}url: ${terminalSafe(request.url)}${context.host !== undefined ? `  (host: ${terminalSafe(context.host)})` : ''}`);
  const schema = (request.data as { schema?: { properties?: Record<string, Record<string, unknown>>; required?: unknown } } | undefined)?.schema;
  if (schema?.properties && typeof schema.properties === 'object') {
    const required = Array.isArray(schema.required) ? schema.required : [];
    const fields = Object.entries(schema.properties).map(([name, field]) => {
      const type = typeof field?.type === 'string' ? field.type : '?';
      const choices = choicesOf(field);
      return `${terminalSafe(JSON.stringify(name))}${required.includes(name) ? '*' : ''}:${terminalSafe(type)}${choices ? ` (${choices})` : ''}`;
    });
    lines.push(`${DETAIL}fields: ${fields.join(', ')}`);
  }
  // Who may answer, and N of M (docs/people.md): how many people must accept, and who has.
  if (context.assignees) lines.push(`${DETAIL}for: ${terminalSafe(assigneesLine(context.assignees))}`);
  // A call through the Nexus service (docs/nexus.md): the caller's namespace and workflow.
  if (context.caller) lines.push(`${DETAIL}asked by: ${terminalSafe(callerLine(context.caller))} (Nexus)`);
  if (context.approvals) {
    const { required: needed, accepted } = context.approvals;
    const by = accepted.length > 0 ? ` (accepted by ${terminalSafe(accepted.join(', '))})` : '';
    lines.push(`${DETAIL}approvals: ${accepted.length} of ${needed} accepted${by}; ${Math.max(0, needed - accepted.length)} more needed`);
  }
  // An approval (docs/approvals.md): the arguments the tool will run with, and what its server says of it.
  if (context.approval) {
    if (context.arguments !== undefined) lines.push(`${DETAIL}arguments: ${terminalSafe(context.arguments)}`);
    const hints = Object.entries(context.approval.annotations ?? {}).map(([k, v]) => `${k}=${String(v)}`);
    const trust = context.approval.annotationsTrusted ? ' (trusted)' : ' (not trusted)';
    lines.push(`${DETAIL}annotations: ${hints.length > 0 ? terminalSafe(hints.join(', ')) : 'none'}${trust}`);
  }
  if (request.expiresAt !== undefined) lines.push(`${DETAIL}expires: ${terminalSafe(request.expiresAt)}`);
  return lines;
}

/** A choice printed bare: one that cannot be read as a separator of the list (`|`, parentheses, quotes, spaces). */
const BARE_CHOICE = /^[\w.@:/+-]+$/;

/**
 * The choices of an enum field, as `pending` prints them: `inside|outside`, a titled one as `a "Label"`; a value with
 * a space, `|`, a parenthesis or a quote is quoted as JSON, so no choice can pass for two or end the list (escaped).
 */
function choicesOf(field: Record<string, unknown> | undefined): string | undefined {
  if (!field || typeof field !== 'object') return undefined;
  const shown = (v: unknown, title?: unknown) =>
    terminalSafe(typeof v === 'string' && BARE_CHOICE.test(v) ? v : (JSON.stringify(v) ?? '?')) +
    (typeof title === 'string' && title !== v ? ` ${terminalSafe(JSON.stringify(title))}` : '');
  const items = field.type === 'array' && field.items && typeof field.items === 'object' ? (field.items as Record<string, unknown>) : field;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = items[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return branches.map((b: { const?: unknown; title?: unknown } | null) => shown(b?.const, b?.title)).join('|');
    }
  }
  if (Array.isArray(items.enum) && items.enum.length > 0) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : [];
    return items.enum.map((v, i) => shown(v, names[i])).join('|');
  }
  return undefined;
}
