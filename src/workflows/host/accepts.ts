/**
 * N of M (docs/people.md): a request that needs `approvals` distinct people to accept. The accepts so far live on the
 * pending record (carried across continue-as-new); the first accept fixes the answer every later accept must give; one
 * decline declines (an ordinary resolution). Pure state: no workflow API.
 */
import type { AnswerCheck } from '../../contract/answer.js';
import { canonicalJson } from '../../contract/id.js';
import type { Answer } from '../../contract/index.js';
import type { PendingRecord } from './registry.js';

/** How many distinct people must accept: the call's N, or the policy's for an approval when larger (never fewer). */
export function requiredAccepts(policy: number | undefined, call: number | undefined): number {
  return Math.max(policy ?? 1, call ?? 1);
}

/** Count an accept of `who` (once per person): true while more people must accept (the request stays pending). */
export function countAccept(e: PendingRecord, required: number, answer: Answer, who: string): boolean {
  if (!answer.ok || required <= 1) return false;
  e.accepts ??= { by: [], data: canonicalJson(answer.data ?? null) };
  if (!e.accepts.by.includes(who)) e.accepts.by.push(who);
  return e.accepts.by.length < required;
}

/** An accept must give the same answer as the first accept of the request (else it is refused as InvalidAnswer). */
export function sameAnswer(e: PendingRecord | undefined, checked: AnswerCheck): AnswerCheck {
  if (!checked.ok || !checked.answer.ok || !e?.accepts || canonicalJson(checked.answer.data ?? null) === e.accepts.data) return checked;
  const reason = `request "${e.request.id}" needs the same answer from each person who accepts: this one differs from the first accept`;
  return { ok: false, reason, type: 'InvalidAnswer' };
}
