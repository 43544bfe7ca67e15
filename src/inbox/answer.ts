/**
 * Answering from the inbox: the page's form posts (`POST /answer`, a redirect back to the page, or the form again with
 * what was typed and why it was not taken) and the JSON API (`POST /api/answer`), both through `submitAnswer`.
 */
import type { Context, Hono } from 'hono';
import { isAnswerRejectedFailure, isClientError, type DurableMcpClient } from '../client/index.js';
import { answerProof } from '../codec/answer-link.js';
import type { Answer, Request } from '../contract/index.js';
import { postedToContent, rejectionByField, schemaFields, type Posted } from './form.js';
import type { LiveHub, RecentlyAnswered } from './live.js';
import { ACTION_FIELD, pageHtml, viewQuery } from './page.js';
import { signedInPerson, viewOf, type PageStates } from './view.js';
import { isAssignee, type Person } from '../contract/assignees.js';
import type { AnswerSource, PendingRequest } from '../workflows/messages.js';

/** Why `person` may not answer this request (undefined: they may; a token's holder is not checked). */
export function notAddressedTo(person: Person | undefined, pending: PendingRequest): string | undefined {
  if (!person || isAssignee(pending.context.assignees, person)) return undefined;
  return `request ${pending.request.id} is not addressed to you (${person.email ?? person.subject}): ask one of its assignees to answer it`;
}

/** What answering needs of the inbox: its client, its page states, who answers, and whom to tell of an answer. */
export interface Answering {
  dmc: DurableMcpClient;
  state: PageStates;
  whoAnswers: (c: Context) => { by: string; source: AnswerSource; person?: string };
  answered: RecentlyAnswered;
  live: LiveHub;
  /**
   * The answer-link key (docs/security.md "Who answered"): each answer goes with the inbox's proof of who gives it, which the
   * worker checks with the same key. Unset: no proof, and the worker records each answer's source as claimed.
   */
  proofKey?: string;
}

/** The answer a form post makes (the form's fields by the request's schema), and the fields it has. */
export function answerFromForm(request: Request, action: 'accept' | 'decline' | 'cancel', posted: Posted): { answer: Answer; fieldKeys: string[] } {
  if (action === 'decline') return { answer: { id: request.id, ok: false, reason: 'declined' }, fieldKeys: [] };
  if (action === 'cancel') return { answer: { id: request.id, ok: false, reason: 'cancelled' }, fieldKeys: [] };
  if (request.kind !== 'input') return { answer: { id: request.id, ok: true }, fieldKeys: [] };
  const fields = schemaFields((request.data as { schema?: unknown } | undefined)?.schema);
  return { answer: { id: request.id, ok: true, data: postedToContent(fields, posted) }, fieldKeys: fields.map((f) => f.key) };
}

/** A form's fields, and its action (`__action`), or undefined when the action is not one of the three. */
export async function postedForm(c: Context): Promise<{ posted: Posted; action: 'accept' | 'decline' | 'cancel' | undefined; raw?: string }> {
  const form = await c.req.formData();
  const posted: Posted = {};
  for (const [k, v] of form.entries()) if (typeof v === 'string') (posted[k] ??= []).push(v);
  const raw = posted[ACTION_FIELD]?.[0];
  delete posted[ACTION_FIELD];
  return { posted, action: raw === 'accept' || raw === 'decline' || raw === 'cancel' ? raw : undefined, ...(raw !== undefined ? { raw } : {}) };
}

export type Verdict = { ok: true; result: { id: string; action: string } } | { ok: false; status: 404 | 409 | 422 | 503; reason: string };

/** Submit an answer as `by`; the workflow's verdict as an HTTP status and message. */
export function submitter({ dmc, answered, live, proofKey }: Pick<Answering, 'dmc' | 'answered' | 'live' | 'proofKey'>) {
  return async (who: { by: string; source: AnswerSource; person?: string; link?: { run: string } }, workflowId: string, answer: Answer): Promise<Verdict> => {
    try {
      // The person as the worker keeps it (200 characters), so the proof covers what it checks.
      const sender = { ...who, ...(who.person !== undefined ? { person: who.person.slice(0, 200) } : {}) };
      const proof = proofKey !== undefined ? answerProof(proofKey, { workflowId, answer, ...sender }) : undefined;
      const result = await dmc.submit(workflowId, answer, { ...sender, ...(proof !== undefined ? { proof } : {}) });
      // Visibility lags: the answered request leaves this inbox's pages now, and every open tab is told at once (unless
      // it waits for more people to accept: N of M).
      if (!result.awaiting) answered.add(workflowId, answer.id);
      live.poke();
      return { ok: true as const, result };
    } catch (err) {
      // The answer does not fit the request (InvalidAnswer, AnswerTooLarge), or the request is no longer pending.
      if (isAnswerRejectedFailure(err, 'InvalidAnswer') || isAnswerRejectedFailure(err, 'AnswerTooLarge'))
        return { ok: false as const, status: 422 as const, reason: err.reason };
      if (isAnswerRejectedFailure(err, 'UnknownRequest') || isAnswerRejectedFailure(err, 'AlreadyResolved') || isAnswerRejectedFailure(err, 'Expired'))
        return { ok: false as const, status: 409 as const, reason: err.reason };
      if (isClientError(err, 'UnknownWorkflow')) return { ok: false as const, status: 404 as const, reason: err.message };
      if (isClientError(err, 'WorkflowClosed')) return { ok: false as const, status: 409 as const, reason: err.message };
      // Not taken now (no worker answered in time, or its workflow task fails): nothing was decided; try again.
      if (isClientError(err, 'NoWorker', 'WorkflowTaskFailing')) return { ok: false as const, status: 503 as const, reason: err.message };
      throw err;
    }
  };
}

/** `POST /answer` (the page's forms) and `POST /api/answer` (JSON). */
export function installAnswer(app: Hono, { dmc, state, whoAnswers, answered, live, proofKey }: Answering): void {
  const submitAs = submitter({ dmc, answered, live, ...(proofKey !== undefined ? { proofKey } : {}) });
  const submit = (c: Context, workflowId: string, answer: Answer) => submitAs(whoAnswers(c), workflowId, answer);

  app.post('/answer', async (c) => {
    const workflowId = c.req.query('workflow');
    const requestId = c.req.query('request');
    if (!workflowId || !requestId) return c.text('the form must be posted to /answer?workflow=…&request=…', 400);
    const form = await c.req.formData();
    const posted: Posted = {};
    for (const [k, v] of form.entries()) if (typeof v === 'string') (posted[k] ??= []).push(v);
    const action = posted[ACTION_FIELD]?.[0];
    delete posted[ACTION_FIELD];
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
      return c.text(`field "${ACTION_FIELD}" must be accept, decline or cancel, got ${JSON.stringify(action ?? null)}`, 400);
    // The form again, with what was typed and why it was not taken.
    const formAgain = async (status: 403 | 422 | 503, fields: ReturnType<typeof rejectionByField>['fields'], general?: string) =>
      c.html(pageHtml(await state(viewOf(c), { rejected: { workflowId, requestId, posted, fields, ...(general ? { general } : {}) } })), status);
    let answer: Answer;
    let fieldKeys: string[] = [];
    const person = signedInPerson(c);
    // The request is read to build an accepted answer, and to check that a signed-in person is one of its assignees.
    let pending: PendingRequest | undefined;
    if (action === 'accept' || person) {
      let details;
      try {
        details = await dmc.pendingDetails(workflowId);
      } catch (err) {
        if (isClientError(err, 'UnknownWorkflow')) return rejectedPage(c, 404, `Request ${requestId}: ${err.message}`);
        // The request could not be read (no worker answered in time, ...): not "no longer pending"; what was typed stays.
        return formAgain(503, {}, `Your answer was not sent: ${(err as Error).message}`);
      }
      pending = details.find((d) => d.request.id === requestId);
      if (!pending) return rejectedPage(c, 409, `Request ${requestId} is no longer pending (answered elsewhere, expired, or withdrawn).`);
      // Not theirs: refused, and the request is not shown (its prompt and arguments are for its assignees only).
      const refusal = notAddressedTo(person, pending);
      if (refusal) return rejectedPage(c, 403, `Your answer was not sent: ${refusal}.`);
    }
    if (action === 'decline') answer = { id: requestId, ok: false, reason: 'declined' };
    else if (action === 'cancel') answer = { id: requestId, ok: false, reason: 'cancelled' };
    else {
      const request = pending!.request;
      if (request.kind === 'input') {
        const fields = schemaFields((request.data as { schema?: unknown } | undefined)?.schema);
        fieldKeys = fields.map((f) => f.key);
        answer = { id: requestId, ok: true, data: postedToContent(fields, posted) };
      } else answer = { id: requestId, ok: true };
    }
    const verdict = await submit(c, workflowId, answer);
    if (verdict.ok) return c.redirect(`/?answered=1&action=${verdict.result.action}${viewQuery(viewOf(c), '&')}`, 303);
    if (verdict.status === 503) return formAgain(503, {}, verdict.reason);
    if (verdict.status !== 422) return rejectedPage(c, verdict.status, `Request ${requestId}: ${verdict.reason}`);
    const split = rejectionByField(verdict.reason, fieldKeys);
    return formAgain(422, split.fields, split.general);
  });
  const rejectedPage = async (c: Context, status: 403 | 404 | 409, notice: string) => c.html(pageHtml(await state(viewOf(c), { notice })), status);

  /** JSON API: `{ workflowId, answer }` → the `submitAnswer` result, or `{ error }` with 422 / 409 / 404. */
  app.post('/api/answer', async (c) => {
    // JSON only: a cross-site page cannot send that content type without a CORS preflight, which is never granted.
    if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) return c.json({ error: 'send the answer as Content-Type: application/json' }, 415);
    let body: { workflowId?: unknown; answer?: unknown };
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: 'body must be JSON: {"workflowId":"…","answer":{"id":"…","ok":true,"data":{…}}}' }, 400);
    }
    if (typeof body?.workflowId !== 'string' || !body.workflowId) return c.json({ error: 'field "workflowId" must be a non-empty string' }, 400);
    const person = signedInPerson(c);
    if (person) {
      const id = (body.answer as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string' || !id) return c.json({ error: 'field "answer.id" must be a non-empty string' }, 400);
      let details: PendingRequest[];
      try {
        details = await dmc.pendingDetails(body.workflowId);
      } catch (err) {
        if (isClientError(err, 'UnknownWorkflow')) return c.json({ error: err.message }, 404);
        return c.json({ error: `the answer was not sent: ${(err as Error).message}` }, 503);
      }
      // As `/answer`: a request that is not pending is refused here, before anything is sent (nothing skips the check).
      const pending = details.find((d) => d.request.id === id);
      if (!pending) return c.json({ error: `request ${JSON.stringify(id)} is not pending (answered elsewhere, expired, or withdrawn)` }, 409);
      const refusal = notAddressedTo(person, pending);
      if (refusal) return c.json({ error: refusal }, 403);
    }
    const verdict = await submit(c, body.workflowId, body.answer as Answer);
    return verdict.ok ? c.json(verdict.result) : c.json({ error: verdict.reason }, verdict.status);
  });
}
