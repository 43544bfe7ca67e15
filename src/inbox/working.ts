/**
 * The inbox's "at work" page (`GET /working`, docs/inbox.md): the tool calls running now and what their servers last
 * said of them (MCP progress notifications, and an MCP task's status and `statusMessage`: docs/tasks.md). It reads the
 * newest running `mcpToolCall` workflows through visibility (at most WORKING_SHOWN), then each one's `progress` query,
 * in parallel, each bounded by the inbox's query deadline: a workflow that does not answer is shown without progress,
 * and never holds the page. Its own page, so the inbox's list of pending requests costs nothing more at any scale.
 * A signed-in person (or one named by a proxy's header) is refused: a call's progress is not addressed to anyone, so
 * only the inbox's operators (its token, or loopback without one) see it. Everything a server said is escaped (Hono's
 * `html`), cut, and stripped of control and bidirectional-override characters.
 */
import type { Client } from '@temporalio/client';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import { progressQuery, type CallProgress } from '../workflows/messages.js';
import { documentHtml } from './document.js';
import { signedInPerson } from './view.js';

/** At most this many running calls are shown (the newest first). */
export const WORKING_SHOWN = 20;
/** A server's progress message is cut to this many characters. */
export const PROGRESS_MESSAGE_SHOWN = 300;
/** The page reloads itself this often (seconds; it works without JavaScript). */
const REFRESH_S = 5;

export interface WorkingRow {
  workflowId: string;
  /** What the workflow's calls last reported; undefined when it did not answer the query in time. */
  progress?: CallProgress[];
}

/** A server's text as the page shows it: no control or bidirectional-override characters, cut to `max`. */
export function shownText(text: string, max = PROGRESS_MESSAGE_SHOWN): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/** The newest running `mcpToolCall` workflows (at most `limit`), each with its calls' progress when it answered in time. */
export async function listWorking(client: Client, options: { queryTimeoutMs: number; limit?: number }): Promise<WorkingRow[]> {
  const limit = options.limit ?? WORKING_SHOWN;
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = 'mcpToolCall' AND ExecutionStatus = 'Running'`, pageSize: limit })) {
    ids.push(w.workflowId);
    if (ids.length >= limit) break;
  }
  return Promise.all(
    ids.map(async (workflowId) => {
      const progress = await within(client.workflow.getHandle(workflowId).query(progressQuery), options.queryTimeoutMs);
      return { workflowId, ...(progress ? { progress } : {}) };
    }),
  );
}

function progressLine(p: CallProgress) {
  const amount = p.total !== undefined ? `${p.progress} / ${p.total}` : `${p.progress}`;
  return html`<li class="progress">
    <span class="tool"><span class="server">${shownText(p.server, 100)}</span> / <span class="toolname">${shownText(p.tool, 100)}</span></span
    >${p.step !== undefined ? html` <span class="step">step ${shownText(p.step, 100)}</span>` : ''}
    <span class="message">${p.message !== undefined ? shownText(p.message) : ''}</span> <span class="amount">(${amount})</span>
  </li>`;
}

/** The page: each running call with what its server last said, or that it said nothing (yet), or did not answer. */
export function workingHtml(state: { namespace: string; rows: WorkingRow[]; problem?: string }) {
  return documentHtml({
    title: 'durable-mcp inbox: at work',
    heading: 'Tool calls at work',
    namespace: state.namespace,
    head: html`<meta http-equiv="refresh" content="${REFRESH_S}" />`,
    top: html`<a href="/">pending requests</a> <a href="/history">history</a>`,
    body: html`${state.problem ? html`<p class="problem" role="alert">${state.problem}</p>` : ''}
      <main id="working">
        ${state.rows.length === 0 ? html`<p class="empty">No tool call is running.</p>` : ''}
        ${state.rows.map(
          (r) =>
            html`<article class="working" data-workflow-id="${r.workflowId}">
              <header class="meta"><code class="wf">${r.workflowId}</code></header>
              ${
                r.progress === undefined
                  ? html`<p class="quiet">no answer from a worker in time</p>`
                  : r.progress.length === 0
                    ? html`<p class="quiet">no progress reported yet</p>`
                    : html`<ul>
                        ${r.progress.map(progressLine)}
                      </ul>`
              }
            </article>`,
        )}
      </main>`,
  });
}

/** `GET /working` (behind the inbox's access check). */
export function installWorking(app: Hono, client: Client, queryTimeoutMs: number): void {
  app.get('/working', async (c) => {
    if (signedInPerson(c)) return c.text("the calls at work are shown to the inbox's operators only (its token), not to a signed-in person", 403);
    let rows: WorkingRow[] = [];
    let problem: string | undefined;
    try {
      rows = await listWorking(client, { queryTimeoutMs });
    } catch (err) {
      problem = `could not list the running calls: ${shownText((err as Error).message)}`;
    }
    return c.html(workingHtml({ namespace: client.options.namespace, rows, ...(problem ? { problem } : {}) }));
  });
}
