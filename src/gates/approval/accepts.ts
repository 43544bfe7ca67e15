/**
 * N of M (docs/people.md), the approval gate's count of people: a request (an approval, a yes/no form) that needs
 * `approvals` distinct people to accept. The accepts so far live on the pending record (carried across continue-as-new);
 * the first accept fixes the answer every later accept must give; one decline declines (an ordinary resolution). Pure
 * state: no workflow API.
 */
import type { AnswerCheck } from '../../contract/answer.js';
import { canonicalJson } from '../../contract/id.js';
import type { Answer } from '../../contract/index.js';
import type { PendingRecord } from '../../workflows/host/records.js';
import { weaker, type SenderRecord } from '../../workflows/host/sender.js';

/** How many distinct people must accept: the call's N, or the policy's for an approval when larger (never fewer). */
export function requiredAccepts(policy: number | undefined, call: number | undefined): number {
  return Math.max(policy ?? 1, call ?? 1);
}

/** The key a person is counted by: case- and width-insensitive, so "ANA@x", "ana@x" and "ａｎａ@x" are one person. */
export function personKey(person: string): string {
  return person.normalize('NFKC').toLowerCase().trim();
}

/**
 * Count an accept of `who` (shown) as the person `person` vouches for (counted once, by personKey): true while more
 * people must accept (the request stays pending).
 */
export function countAccept(e: PendingRecord, required: number, answer: Answer, who: string, person: string = who, sender?: SenderRecord): boolean {
  if (!answer.ok || required <= 1) return false;
  e.accepts ??= { by: [], data: canonicalJson(answer.data ?? null) };
  // Records from before `people` was kept counted `by` alone.
  const people = (e.accepts.people ??= e.accepts.by.map(personKey));
  const key = personKey(person);
  if (!people.includes(key)) {
    people.push(key);
    e.accepts.by.push(who);
    if (sender) e.accepts.weakest = weaker(e.accepts.weakest, sender);
  }
  return people.length < required;
}

/** An accept must give the same answer as the first accept of the request (else it is refused as InvalidAnswer). */
export function sameAnswer(e: PendingRecord | undefined, checked: AnswerCheck): AnswerCheck {
  if (!checked.ok || !checked.answer.ok || !e?.accepts || canonicalJson(checked.answer.data ?? null) === e.accepts.data) return checked;
  const reason = `request "${e.request.id}" needs the same answer from each person who accepts: this one differs from the first accept`;
  return { ok: false, reason, type: 'InvalidAnswer' };
}
