/**
 * What the inbox shows of people (docs/people.md): the signed-in person with their two views and sign-out (the page of
 * one request opened by an answer link is page.ts's `linkPageHtml`). Everything shown is escaped (hono/html).
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { InboxView } from './list.js';

type H = HtmlEscapedString | Promise<HtmlEscapedString>;
type Show = 'mine' | 'answerable';

/** The signed-in person, links to their two views (`href(show)`) and sign-out; nothing without a person. */
export function personHtml(f: InboxView['for'], href: (show: Show) => string): H | string {
  if (!f) return '';
  return html`<span class="person"
    >signed in as
    <strong id="person">${f.person.email ?? f.person.subject}</strong>
    ${f.show === 'mine' ? html`<strong>mine</strong>` : html`<a id="show-mine" href="${href('mine')}">mine</a>`}
    ${f.show === 'answerable' ? html`<strong>all I may answer</strong>` : html`<a id="show-answerable" href="${href('answerable')}">all I may answer</a>`}
    ${f.person.source === 'oidc' ? html`<form method="post" action="/auth/logout" class="signout"><button type="submit">sign out</button></form>` : ''}</span
  >`;
}
