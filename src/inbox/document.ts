/**
 * The frame every inbox page shares (the list, an answer link's page, history, at work): with Hono's `html` template,
 * so every interpolated value is escaped.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type H = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The one frame of every inbox page: its head (the stylesheet, and the script when `script`), then a top bar and `body`. */
export function documentHtml(p: { title: string; heading: string; namespace: string; script?: boolean; head?: H; top: H; body: H }): H {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${p.title}</title>
        <link rel="stylesheet" href="/static/inbox.css" />
        ${p.script ? html`<script src="/static/inbox.js" defer></script>` : ''} ${p.head ?? ''}
      </head>
      <body>
        <header class="top">
          <h1>${p.heading}</h1>
          <span class="namespace">namespace <code>${p.namespace}</code></span>
          ${p.top}
        </header>
        ${p.body}
      </body>
    </html>`;
}
