/**
 * Answering from a notification (docs/people.md): `GET /a/<token>` opens the one request a signed answer link names, for
 * the one assignee it names, with no inbox token or session; `POST /a/<token>` answers it through `submitAnswer`, with
 * the same validation as the inbox's forms. The link's MAC and expiry are checked before Temporal is asked anything; a
 * link answers once (a second use is refused, 410), and only while its assignee is still one of the request's.
 */
import type { Context, Hono } from 'hono';
import { isClientError } from '../client/index.js';
import { ANSWER_LINK_PATH, linkStillFor, openAnswerLink, type AnswerLink } from '../codec/answer-link.js';
import type { PendingRequest } from '../workflows/messages.js';
import { answerFromForm, postedForm, submitter, type Answering } from './answer.js';
import { rejectionByField, type Posted } from './form.js';
import { linkPageHtml, type PageState } from './page.js';

/** At most this many used links are remembered (the oldest are forgotten first; their requests are long answered). */
const USED_REMEMBERED = 100_000;

export function installAnswerLinks(app: Hono, key: string, deps: Pick<Answering, 'dmc' | 'answered' | 'live'>): void {
  const { dmc } = deps;
  // The link's answer goes with the inbox's proof, under the same key (the worker checks it: docs/security.md "Who answered").
  const submit = submitter({ ...deps, proofKey: key });
  /** Links that answered (by their token), until they expire. */
  const used = new Map<string, number>();
  const forget = () => {
    const now = Date.now();
    for (const [t, exp] of used) if (exp <= now || used.size > USED_REMEMBERED) used.delete(t);
  };

  /** The link's request for its assignee, or the response that refuses it. */
  const resolve = async (c: Context): Promise<{ link: AnswerLink; pending: PendingRequest; token: string } | Response> => {
    const token = c.req.param('token') ?? '';
    const link = openAnswerLink(key, token);
    if (link === 'forged') return c.text('this answer link is not valid', 403);
    if (link === 'expired') return c.text('this answer link has expired (with its request)', 410);
    if (used.has(token)) return c.text('this answer link was already used: it answers once', 410);
    let details: PendingRequest[];
    try {
      details = await dmc.pendingDetails(link.workflowId);
    } catch (err) {
      if (isClientError(err, 'UnknownWorkflow')) return c.text('the request of this link is gone', 404);
      return c.text(`the request could not be read now; try again: ${(err as Error).message}`, 503);
    }
    const pending = details.find((d) => d.request.id === link.requestId);
    if (!pending) return c.text('the request of this link is no longer pending (answered, expired or withdrawn)', 409);
    if (!linkStillFor(link.to, pending.context.assignees)) return c.text('this answer link is not for one of the request\u2019s assignees', 403);
    // N of M counts distinct people, which a link (read by whoever reads the notification) cannot tell apart.
    const required = pending.context.approvals?.required ?? 1;
    if (required > 1) return c.text(`this request needs ${required} people to accept: sign in to the inbox to answer it`, 403);
    return { link, pending, token };
  };
  const page = (
    c: Context,
    found: { link: AnswerLink; pending: PendingRequest; token: string },
    extra: Partial<PageState> = {},
    status: 200 | 422 | 503 = 200,
  ) => {
    const row = { kind: 'pending' as const, workflowId: found.link.workflowId, runId: '', workflowType: '', ...found.pending };
    const state: PageState = { rows: [row], namespace: dmc.namespace, formAction: `${ANSWER_LINK_PATH}${found.token}`, ...extra };
    const who = found.link.to === '*' ? 'A request for you' : `A request for ${found.link.to.replace(/^role:/, 'role ')}`;
    return c.html(linkPageHtml(state, who), status);
  };

  app.get(`${ANSWER_LINK_PATH}:token`, async (c) => {
    const found = await resolve(c);
    return found instanceof Response ? found : page(c, found);
  });

  app.post(`${ANSWER_LINK_PATH}:token`, async (c) => {
    const found = await resolve(c);
    if (found instanceof Response) return found;
    const { posted, action } = await postedForm(c);
    if (!action) return c.text('field "__action" must be accept, decline or cancel', 400);
    const { answer, fieldKeys } = answerFromForm(found.pending.request, action, posted);
    // Taken now, so two posts of one link at once answer once.
    if (used.has(found.token)) return c.text('this answer link was already used: it answers once', 410);
    forget();
    used.set(found.token, found.link.exp);
    const again = (status: 422 | 503, fields: Record<string, string>, general?: string) => {
      used.delete(found.token);
      const rejected: PageState['rejected'] = { workflowId: found.link.workflowId, requestId: found.link.requestId, posted: posted as Posted, fields };
      return page(c, found, { rejected: { ...rejected, ...(general ? { general } : {}) } }, status);
    };
    const by = `${found.link.to === '*' ? 'answer link' : found.link.to} (link)`;
    const sender = { by, source: 'link' as const, link: { run: found.link.run }, ...(found.link.to === '*' ? {} : { person: found.link.to }) };
    const verdict = await submit(sender, found.link.workflowId, answer);
    if (verdict.ok)
      return c.html(linkPageHtml({ rows: [], namespace: dmc.namespace, notice: `Thank you: your answer (${verdict.result.action}) was taken.` }, 'Answered'));
    if (verdict.status === 503) return again(503, {}, verdict.reason);
    if (verdict.status === 422) {
      const split = rejectionByField(verdict.reason, fieldKeys);
      return again(422, split.fields, split.general);
    }
    return c.text(verdict.reason, verdict.status);
  });
}
