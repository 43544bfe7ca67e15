/**
 * The inbox page, with Hono's `html` template: every interpolated value is escaped unless wrapped in
 * `raw()`, which this file uses only for its own constant markup. Everything an MCP server sends (message,
 * titles, descriptions, enum labels, URLs) is interpolated, never raw; only links that pass the URL rules of contract/admit.ts are clickable.
 */
import { html } from 'hono/html';
import { checkElicitationUrl } from '../contract/admit.js';
import { assigneesLine } from '../contract/assignees.js';
import { callerLine } from '../contract/nexus.js';
import { documentHtml } from './document.js';
import { personHtml } from './person-view.js';
import type { HtmlEscapedString } from 'hono/utils/html';
import { approvalHtml } from './approval-view.js';
import { initialValues, schemaFields, type Field, type Posted } from './form.js';
import type { InboxRow, InboxView } from './list.js';
import { escapeJsonControlChars } from '../contract/control-chars.js';

type H = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The control name of the submit buttons (`accept`, `decline`, `cancel`); no property key should use it. */
export const ACTION_FIELD = '__action';

/** The notices after an answer, by its action: the page's `?answered=1&action=…` picks one and shows nothing of the query. */
const NOTICES: Record<string, string> = {
  accept: 'Your answer was sent (accept).',
  decline: 'The request was declined (decline).',
  cancel: 'The request was cancelled (cancel).',
};
/** The notice of `action`, from the fixed list; any other value gets the general one. */
export function noticeOf(action: string | undefined): string {
  return (action !== undefined && Object.hasOwn(NOTICES, action) ? NOTICES[action] : undefined) ?? 'Your answer was sent.';
}

/**
 * A link the inbox may make clickable: the URL rules every elicitation passed at arrival (contract/admit.ts:
 * `https:` with a host, `http:` to a loopback host, printable ASCII, no user info), checked again here.
 */
export function clickableUrl(url: string): { href: string; host: string } | undefined {
  const check = checkElicitationUrl(url);
  return check.ok ? { href: url, host: check.host } : undefined;
}

/** "3 h 12 min", "45 s", "expired". */
export function timeLeft(expiresAt: string | undefined, now = Date.now()): string {
  if (!expiresAt) return 'no expiry';
  const ms = Date.parse(expiresAt) - now;
  if (!(ms > 0)) return 'expired';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

export interface PageState {
  rows: InboxRow[];
  /** The filters, cursor and page size the page shows. */
  view?: InboxView;
  /** The next page's cursor, when there is one. */
  nextCursor?: string;
  /** How the rows are ordered (`expiry` or `visibility`, see src/client/listing.ts). */
  order?: string;
  namespace: string;
  /** Base address of the Temporal UI, for links to workflows. */
  temporalUi?: string;
  /** A line at the top (e.g. "answered …"). */
  notice?: string;
  /** A problem with the whole list (e.g. the search attribute is not registered). */
  problem?: string;
  /** A rejected submit: the form shows what was typed and the rejection next to its field. */
  rejected?: { workflowId: string; requestId: string; posted: Posted; fields: Record<string, string>; general?: string };
  /** Where the forms post (a page of one request opened by an answer link); default `/answer?workflow=…&request=…`. */
  formAction?: string;
}

/** The key that identifies a row across refreshes (live updates keep rows whose key stays). */
export function rowKey(row: InboxRow): string {
  return row.kind === 'pending' ? JSON.stringify([row.workflowId, row.request.id]) : JSON.stringify([row.workflowId, '']);
}

export function workflowLink(workflowId: string, state: PageState): H {
  if (!state.temporalUi) return html`<code>${workflowId}</code>`;
  const href = `${state.temporalUi.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(state.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return html`<a class="workflow" href="${href}" rel="noopener noreferrer" target="_blank"><code>${workflowId}</code></a>`;
}

/** The view's filters (and page size) as a query string: `prefix` + `server=…&tool=…`, or "" without any. */
export function viewQuery(view: InboxView | undefined, prefix: '?' | '&' = '?', cursor?: string): string {
  const p = new URLSearchParams();
  const f = view?.filter ?? {};
  for (const [param, value] of [
    ['server', f.server],
    ['tool', f.tool],
    ['kind', f.kind],
    ['step', f.step],
    ['type', f.workflowType],
    ['text', f.text],
  ] as const)
    if (value !== undefined) p.set(param, value);
  if (view?.limit !== undefined) p.set('limit', String(view.limit));
  if (view?.for?.show === 'mine') p.set('show', 'mine');
  if (cursor) p.set('cursor', cursor);
  const q = p.toString();
  return q ? `${prefix}${q}` : '';
}

/** A field's limits in words, shown before anyone types ("required; 1 to 12; whole number"). */
export function limitsText(f: Field): string {
  const parts: string[] = [];
  if (f.required) parts.push('required');
  switch (f.kind) {
    case 'text':
      if (f.format) parts.push({ email: 'an email address', uri: 'a URL', date: 'a date', 'date-time': 'a date and time (UTC)' }[f.format]);
      if (f.minLength !== undefined && f.maxLength !== undefined) parts.push(`${f.minLength} to ${f.maxLength} characters`);
      else if (f.minLength !== undefined) parts.push(`at least ${f.minLength} characters`);
      else if (f.maxLength !== undefined) parts.push(`at most ${f.maxLength} characters`);
      break;
    case 'number':
      parts.push(f.integer ? 'a whole number' : 'a number');
      if (f.minimum !== undefined && f.maximum !== undefined) parts.push(`${f.minimum} to ${f.maximum}`);
      else if (f.minimum !== undefined) parts.push(`at least ${f.minimum}`);
      else if (f.maximum !== undefined) parts.push(`at most ${f.maximum}`);
      break;
    case 'select':
      parts.push('one of the choices');
      break;
    default:
      break;
  }
  return parts.join('; ');
}

let controlCounter = 0;

/** An input's bounds and its required mark, as attributes (the browser checks them before submitting). */
function limits(f: Field, minName: string, maxName: string, min: number | undefined, max: number | undefined): H | string {
  const attr = (name: string, value: number | undefined) => (value === undefined ? '' : html` ${name}="${value}"`);
  return html`${attr(minName, min)}${attr(maxName, max)}${f.required ? html` required` : ''}`;
}

function fieldHtml(f: Field, values: Posted, error: string | undefined): H {
  const id = `f${++controlCounter}`;
  const v = values[f.key] ?? [];
  const mark = f.required ? html`<span class="required" title="required">*</span>` : '';
  const label = html`<label for="${id}">${f.title}${mark}</label>`;
  const desc = f.description ? html`<p class="description" id="${id}-d">${f.description}</p>` : '';
  const err = html`<p class="field-error" data-error-for="${f.key}" role="alert" ${error ? '' : html` hidden`}>${error ?? ''}</p>`;
  const limitText = limitsText(f);
  const limitHint = limitText && f.kind !== 'multi' && f.kind !== 'boolean' ? html`<p class="hint limits" id="${id}-l">${limitText}</p>` : '';
  const described =
    f.description || limitHint ? html` aria-describedby="${[f.description ? `${id}-d` : '', limitHint ? `${id}-l` : ''].join(' ').trim()}"` : '';
  let control: H;
  switch (f.kind) {
    case 'text': {
      const type =
        f.format === 'email' ? 'email' : f.format === 'uri' ? 'url' : f.format === 'date' ? 'date' : f.format === 'date-time' ? 'datetime-local' : 'text';
      // A date-time is shown and sent in UTC (datetime-local has no zone): "2026-12-24T10:30:00Z" shows as 2026-12-24T10:30.
      const shown = f.format === 'date-time' ? (v[0] ?? '').replace(/(:\d{2})?(\.\d+)?Z$/, '') : (v[0] ?? '');
      control = html`<input
          id="${id}"
          type="${type}"
          name="${f.key}"
          value="${shown}"
          ${limits(f, 'minlength', 'maxlength', f.minLength, f.maxLength)}${described}
        />${f.format === 'date-time' ? html` <span class="hint">UTC</span>` : ''}`;
      break;
    }
    case 'number':
      control = html`<input
        id="${id}"
        type="number"
        name="${f.key}"
        value="${v[0] ?? ''}"
        step="${f.integer ? '1' : 'any'}"
        ${limits(f, 'min', 'max', f.minimum, f.maximum)}${described}
      />`;
      break;
    case 'boolean':
      return html`<div class="field boolean">
        <input id="${id}" type="checkbox" name="${f.key}" value="true" ${v.includes('true') ? html` checked` : ''}${described} /> ${label}${desc}${err}
      </div>`;
    case 'select': {
      const chosen = v[0];
      const empty = chosen === undefined || !f.required ? html`<option value="" ${chosen === undefined ? html` selected` : ''}>—</option>` : '';
      control = html`<select id="${id}" name="${f.key}" ${f.required ? html` required` : ''}${described}>
        ${empty}${f.choices.map((c) => html`<option value="${c.value}" ${c.value === chosen ? html` selected` : ''}>${c.label}</option>`)}
      </select>`;
      break;
    }
    case 'multi': {
      const limits = [f.minItems !== undefined ? `at least ${f.minItems}` : '', f.maxItems !== undefined ? `at most ${f.maxItems}` : '']
        .filter(Boolean)
        .join(', ');
      return html`<fieldset class="field multi" ${described}>
        <legend>${f.title}${mark}</legend>
        ${desc}${limits ? html`<p class="hint">choose ${limits}</p>` : ''}${f.choices.map(
          (c, i) =>
            html`<label class="choice"
              ><input id="${id}-${i}" type="checkbox" name="${f.key}" value="${c.value}" ${v.includes(c.value) ? html` checked` : ''} /> ${c.label}</label
            >`,
        )}${err}
      </fieldset>`;
    }
    case 'unsupported':
      control = html`<p class="hint">This field (type ${f.type}) cannot be answered here; use the CLI or the client library.</p>`;
      break;
  }
  return html`<div class="field">${label}${desc}${limitHint}${control}${err}</div>`;
}

function buttons(kind: 'input' | 'authorization' | 'approval'): H {
  return html`<div class="actions">
    <button type="submit" name="${ACTION_FIELD}" value="accept" class="primary">
      ${kind === 'input' ? 'Accept' : kind === 'approval' ? 'Approve' : 'Done'}</button
    ><button type="submit" name="${ACTION_FIELD}" value="decline" formnovalidate>Decline</button
    ><button type="submit" name="${ACTION_FIELD}" value="cancel" formnovalidate>Cancel</button>
  </div>`;
}

function pendingRow(row: Extract<InboxRow, { kind: 'pending' }>, state: PageState): H {
  const { request, context } = row;
  const rejected = state.rejected && state.rejected.workflowId === row.workflowId && state.rejected.requestId === request.id ? state.rejected : undefined;
  const action =
    state.formAction ?? `/answer?workflow=${encodeURIComponent(row.workflowId)}&request=${encodeURIComponent(request.id)}${viewQuery(state.view, '&')}`;
  const meta = html`<header class="meta">
    <span class="tool"><span class="server">${context.server}</span> / <span class="toolname">${context.tool}</span></span
    >${context.step !== undefined ? html` <span class="step">step ${context.step}</span>` : ''} <span class="wf">${workflowLink(row.workflowId, state)}</span>
    ${context.assignees ? html`<span class="assignees">for ${assigneesLine(context.assignees)}</span>` : ''}
    ${context.caller ? html`<span class="caller">asked by ${callerLine(context.caller)} (Nexus)</span>` : ''}
    ${context.askedAt ? html`<span class="asked">asked <time datetime="${context.askedAt}">${shownTime(context.askedAt)}</time></span>` : ''}
    <span class="left"
      >expires in
      <time class="countdown" datetime="${request.expiresAt ?? ''}" data-expires-at="${request.expiresAt ?? ''}">${timeLeft(request.expiresAt)}</time></span
    >
  </header>`;
  const general = rejected?.general ? html`<p class="form-error" role="alert">${rejected.general}</p>` : '';
  // An approval shows the tool, its annotations and the arguments in its own box (./approval-view.ts).
  const args = context.approval
    ? approvalHtml(context)
    : context.arguments
      ? html`<details class="arguments">
          <summary>arguments of the call</summary>
          <pre>${escapeJsonControlChars(context.arguments)}</pre>
        </details>`
      : '';
  const noWorker = row.noWorker ? html`<p class="no-worker">No worker can take an answer now: <span class="reason">${row.noWorker}</span></p>` : '';
  const classes = `request ${request.kind}${row.noWorker ? ' unreachable' : ''}`;
  let body: H;
  if (row.tooLarge) {
    body = html`<p class="hint">This request is too large to list; it is read from its workflow when you answer it.</p>`;
  } else if (request.kind === 'authorization') {
    const url = request.url ?? '';
    const link = clickableUrl(url);
    body = link
      ? html`<div class="link">
          <p class="host">Opens <strong>${link.host}</strong></p>
          <a class="url" href="${link.href}" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer" target="_blank">${url}</a>
        </div>`
      : html`<div class="link unsafe">
          <p class="host">This link is not a safe https: link, so it is not clickable:</p>
          <code class="url">${url}</code>
        </div>`;
  } else {
    const fields = schemaFields((request.data as { schema?: unknown } | undefined)?.schema);
    const values = rejected?.posted ?? initialValues(fields);
    body = html`${fields.map((f) => fieldHtml(f, values, rejected?.fields[f.key]))}`;
  }
  return html`<article class="${classes}" data-entry="${rowKey(row)}" data-workflow-id="${row.workflowId}">
    ${meta}${noWorker}
    <p class="prompt">${request.prompt}</p>
    ${args}
    <form data-request-id="${request.id}" data-workflow-id="${row.workflowId}" method="post" action="${action}">
      ${body}${general}${buttons(request.kind === 'authorization' ? 'authorization' : context.approval ? 'approval' : 'input')}
    </form>
  </article>`;
}

function unreachableRow(row: Extract<InboxRow, { kind: 'unreachable' }>, state: PageState): H {
  return html`<article class="request unreachable" data-entry="${rowKey(row)}" data-workflow-id="${row.workflowId}">
    <header class="meta"><span class="wf">${workflowLink(row.workflowId, state)}</span></header>
    <p class="prompt">This workflow awaits input but cannot be queried: <span class="reason">${row.reason}</span></p>
  </article>`;
}

/** The list of rows (what live updates fetch and merge). */
export function rowsHtml(state: PageState): H {
  const pending = state.rows.filter((r) => r.kind === 'pending').length;
  return html`<div id="rows" data-count="${pending}">
    ${state.problem ? html`<p class="problem" role="alert">${state.problem}</p>` : ''}
    ${state.rows.length === 0 ? html`<p class="empty">No pending requests.</p>` : ''}
    ${state.rows.map((r) => (r.kind === 'pending' ? pendingRow(r, state) : unreachableRow(r, state)))}
    ${state.nextCursor ? html`<p class="pager"><a rel="next" href="/${viewQuery(state.view, '?', state.nextCursor)}">Next page</a></p>` : ''}
  </div>`;
}

/** "2026-12-01 12:30:05 UTC". */
export function shownTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t)
    ? new Date(t)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : iso;
}

/** The filters, as a plain GET form (works without JavaScript). */
function filtersHtml(state: PageState): H {
  const f = state.view?.filter ?? {};
  const text = (name: string, label: string, value: string | undefined) =>
    html`<label>${label} <input type="search" name="${name}" value="${value ?? ''}" maxlength="200" /></label>`;
  return html`<form class="filters" method="get" action="/" role="search">
    ${text('server', 'server', f.server)} ${text('tool', 'tool', f.tool)}
    <label
      >kind
      <select name="kind">
        <option value="" ${f.kind === undefined ? html` selected` : ''}>any</option>
        <option value="input" ${f.kind === 'input' ? html` selected` : ''}>form</option>
        <option value="authorization" ${f.kind === 'authorization' ? html` selected` : ''}>link</option>
      </select></label
    >
    ${text('step', 'step', f.step)} ${text('type', 'workflow type', f.workflowType)} ${text('text', 'text in the prompt', f.text)}
    <button type="submit">Filter</button> <a href="/">clear</a>
  </form>`;
}

export function pageHtml(state: PageState): H {
  return documentHtml({
    title: 'durable-mcp inbox',
    heading: 'durable-mcp inbox',
    namespace: state.namespace,
    script: true,
    top: html`<span id="live" class="live">live updates need JavaScript; reload to refresh</span>
      <a href="/history">history</a>${state.view?.for ? '' : html` <a href="/working">at work</a>`}
      ${personHtml(state.view?.for, (show) => `/${viewQuery({ ...state.view!, cursor: undefined, for: { ...state.view!.for!, show } })}`)}`,
    body: html`${filtersHtml(state)} ${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
      <main>${rowsHtml(state)}</main>`,
  });
}

/** The page of one request opened by an answer link: its form only, no list, no live updates. */
export function linkPageHtml(state: PageState, heading: string): H {
  return documentHtml({
    title: 'durable-mcp: a request for you',
    heading,
    namespace: state.namespace,
    top: html``,
    body: html`${state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ''}
      <main>${rowsHtml(state)}</main>`,
  });
}
