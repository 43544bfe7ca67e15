/** The inbox's history page: the latest resolutions, who resolved each and when, the outcome, and the call's result. */
import { html } from 'hono/html';
import type { ResolvedRow } from '../client/resolved.js';
import { documentHtml } from './document.js';
import { shownTime, workflowLink, type PageState } from './page.js';
import { escapeJsonControlChars } from '../contract/control-chars.js';

/** A resolved request with the call's result, when it finished. */
export interface HistoryRow extends ResolvedRow {
  /** The call's result once it finished; an approved call's approved arguments (JSON) too. */
  result?: { text: string; approvedArguments?: string };
}

/** The history page: the latest resolutions, who resolved each and when, the outcome, and the call's result. */
export function historyHtml(state: { namespace: string; temporalUi?: string; rows: HistoryRow[]; problem?: string }) {
  const page: PageState = { rows: [], namespace: state.namespace, ...(state.temporalUi ? { temporalUi: state.temporalUi } : {}) };
  return documentHtml({
    title: 'durable-mcp inbox: history',
    heading: 'Resolved requests',
    namespace: state.namespace,
    top: html`<a href="/">pending requests</a>`,
    body: html`${state.problem ? html`<p class="problem" role="alert">${state.problem}</p>` : ''}
      <main id="history">
        ${state.rows.length === 0 ? html`<p class="empty">Nothing resolved in the last 24 hours.</p>` : ''}
        ${state.rows.map(
          (r) =>
            html`<article class="resolved ${r.outcome}" data-workflow-id="${r.workflowId}" data-request-id="${r.id}">
              <header class="meta">
                <span class="tool"><span class="server">${r.server}</span> / <span class="toolname">${r.tool}</span></span
                >${r.step !== undefined ? html` <span class="step">step ${r.step}</span>` : ''}
                <span class="wf">${workflowLink(r.workflowId, page)}</span>
              </header>
              <p class="prompt">${r.prompt}</p>
              <p class="resolution">
                <span class="outcome">${r.outcome}</span> by <span class="by">${r.by}</span> <time datetime="${r.at}">${shownTime(r.at)}</time>; the call is
                <span class="status">${r.status.toLowerCase()}</span>
              </p>
              ${
                r.result?.approvedArguments
                  ? html`<p class="approved">ran with the approved arguments <code>${escapeJsonControlChars(r.result.approvedArguments)}</code></p>`
                  : ''
              }
              ${r.result ? html`<pre class="result">${r.result.text}</pre>` : ''}
            </article>`,
        )}
      </main>`,
  });
}
