/**
 * How the inbox shows an approval (docs/approvals.md): the tool (title, name, description), its annotations and whether
 * the config trusts them, and the arguments it is asked to run with. Every value comes from the MCP server or the call:
 * interpolated with Hono's `html`, so escaped, never raw.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { escapeJsonControlChars } from '../contract/control-chars.js';
import type { PendingContext } from '../contract/requests.js';

type H = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The annotation hints as a person reads them ("readOnlyHint: true"), in the server's order. */
function hints(annotations: Record<string, unknown> | undefined): string[] {
  if (!annotations) return [];
  return Object.entries(annotations)
    .filter(([, v]) => typeof v === 'boolean' || typeof v === 'string')
    .slice(0, 10)
    .map(([k, v]) => `${k}: ${String(v)}`);
}

/** The arguments pretty-printed (two spaces a level); the same value: an approval's arguments are whole JSON. */
function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** The approval's box above its form: what runs, what the server says of it, and the arguments (read-only when not editable). */
export function approvalHtml(context: PendingContext): H {
  const a = context.approval!;
  const listed = hints(a.annotations);
  const trust = a.annotationsTrusted ? 'trusted by the config' : 'hints only: not trusted by the config';
  return html`<section class="approval">
    <p class="approval-tool">
      Approve before it runs:
      <strong class="tool-title">${a.title ?? context.tool}</strong>${a.title && a.title !== context.tool ? html` (<code>${context.tool}</code>)` : ''} of
      server <strong>${context.server}</strong>
    </p>
    ${a.description ? html`<p class="tool-description">${a.description}</p>` : ''}
    <p class="annotations">
      Annotations: ${listed.length > 0 ? listed.join(', ') : 'none (treated as the worst case: may change or delete things)'}
      <span class="trust">(${trust})</span>
    </p>
    ${
      context.arguments
        ? html`<p class="approval-args-label">Arguments it will run with${a.editable ? ' (edit them below)' : ''}:</p>
            <pre class="approval-args">${escapeJsonControlChars(pretty(context.arguments))}</pre>
            <details class="approval-json">
              <summary>as JSON, exactly as it runs</summary>
              <code>${escapeJsonControlChars(context.arguments)}</code>
            </details>`
        : ''
    }
  </section>`;
}
