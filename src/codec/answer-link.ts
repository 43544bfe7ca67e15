/**
 * Signed answer links (docs/people.md "Answer from the notification"): a notification carries, per assignee, a link that
 * opens that one request's form for that one assignee in the inbox, without the inbox's token. The worker's
 * `notifyPending` signs it; the inbox checks it before anything reaches Temporal.
 *
 * Link: `<inboxUrl>/a/<body>.<mac>`, body = base64url(JSON {w: workflowId, u: run, r: requestId, to: assignee, exp: ms}),
 * mac = base64url(HMAC-SHA256(key, "durable-mcp answer link v2 " + body)). `to` is a user (`ana@example.com`), a role
 * (`role:finance`) or `*` (an unaddressed request); `exp` is the request's expiry; `u` the run it was made for (the first
 * run of the workflow's chain). Single use, for one run: the inbox sends the run beside the answer and the workflow
 * refuses it on any other run (a new run with the same id has the same request ids), and a request is answered once in
 * its run, whichever inbox replica sends the answer.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AnswerProofInput } from '../contract/activities.js';

export type { AnswerProofInput } from '../contract/activities.js';

/** The key both sides need (at least 32 characters): the config's `notify.linkKey` and the inbox's `answerLinkKey`. */
export const ANSWER_LINK_KEY_ENV = 'DURABLE_MCP_ANSWER_LINK_KEY';
export const ANSWER_LINK_PATH = '/a/';

export interface AnswerLink {
  workflowId: string;
  /** The run it was made for (the first run of the workflow's chain; a pipeline's run for a step's request). */
  run: string;
  requestId: string;
  /** The assignee it is for: a user, `role:<name>`, or `*`. */
  to: string;
  /** When it stops working (the request's expiry), ms since the epoch. */
  exp: number;
}

function mac(key: string, body: string): string {
  return createHmac('sha256', key).update(`durable-mcp answer link v2 ${body}`).digest('base64url');
}

/** The link's token (the part after `/a/`). */
export function signAnswerLink(key: string, link: AnswerLink): string {
  const body = Buffer.from(JSON.stringify({ w: link.workflowId, u: link.run, r: link.requestId, to: link.to, exp: link.exp })).toString('base64url');
  return `${body}.${mac(key, body)}`;
}

/** The link a token carries, when this key signed it and it has not expired; else why not. */
export function openAnswerLink(key: string, token: string, now = Date.now()): AnswerLink | 'forged' | 'expired' {
  if (token.length > 4096) return 'forged';
  const [body, tag, extra] = token.split('.');
  if (!body || !tag || extra !== undefined) return 'forged';
  const want = Buffer.from(mac(key, body));
  const got = Buffer.from(tag);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'forged';
  let v: { w?: unknown; u?: unknown; r?: unknown; to?: unknown; exp?: unknown };
  try {
    v = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof v;
  } catch {
    return 'forged';
  }
  if (typeof v.w !== 'string' || typeof v.u !== 'string' || typeof v.r !== 'string' || typeof v.to !== 'string' || typeof v.exp !== 'number') return 'forged';
  if (v.exp <= now) return 'expired';
  return { workflowId: v.w, run: v.u, requestId: v.r, to: v.to, exp: v.exp };
}

/** The assignees a request's links go to: each user, each role (`role:<name>`), or `*` for an unaddressed request. */
export function linkTargets(assignees: { users?: string[]; roles?: string[] } | undefined): string[] {
  if (!assignees) return ['*'];
  return [...(assignees.users ?? []), ...(assignees.roles ?? []).map((r) => `role:${r}`)];
}

/** Whether a link's assignee is still one of the request's (an escalation may have widened them; never narrowed). */
export function linkStillFor(to: string, assignees: { users?: string[]; roles?: string[] } | undefined): boolean {
  if (to === '*') return assignees === undefined;
  if (to.startsWith('role:')) return assignees?.roles?.includes(to.slice(5)) ?? false;
  return assignees?.users?.some((u) => u.toLowerCase() === to.toLowerCase()) ?? false;
}

/** The text a proof's HMAC covers: one JSON array, so no field can run into the next. */
function proofText(p: AnswerProofInput): string {
  const requestId = (p.answer as { id?: unknown } | null)?.id;
  const id = typeof requestId === 'string' ? requestId : null;
  return JSON.stringify([p.workflowId, id, p.by, p.source, p.person ?? null, p.link?.run ?? null, JSON.stringify(p.answer)]);
}

/**
 * The inbox's proof that it vouches for an answer's sender (sent beside the answer as `AnswerBy.proof`, never inside it):
 * base64url(HMAC-SHA256(key, "durable-mcp answer proof v1 " + the JSON of [workflowId, requestId, by, source, person, link
 * run, the answer's JSON])) under the answer-link key the worker shares. The worker checks it (`checkAnswerProof`); an
 * answer whose source has no valid proof is recorded as claimed.
 */
export function answerProof(key: string, p: AnswerProofInput): string {
  return createHmac('sha256', key)
    .update(`durable-mcp answer proof v1 ${proofText(p)}`)
    .digest('base64url');
}

/** Whether `proof` is this key's proof of this sender and answer (compared in constant time). */
export function answerProofValid(key: string, p: AnswerProofInput, proof: unknown): boolean {
  if (typeof proof !== 'string' || proof.length > 100) return false;
  const want = Buffer.from(answerProof(key, p));
  const got = Buffer.from(proof);
  return want.length === got.length && timingSafeEqual(want, got);
}
