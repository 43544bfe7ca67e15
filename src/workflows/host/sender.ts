/**
 * Who sent an answer, as the worker records it (docs/security.md "Who answered", docs/people.md): a sender's `source` is a
 * claim until the worker checks it. The inbox proves the sources stronger than `cli` (a sign-in, an answer link, a
 * proxy's header, its token) with an HMAC under the answer-link key the worker shares (`AnswerBy.proof`); the workflow
 * cannot hold that key (its history is readable), so the `checkAnswerProof` local activity checks it, and only when a
 * sender names such a source with a proof. A source named without a valid proof is recorded as `claimed` (with what it
 * claimed), never as itself. `cli` is a claim by nature (anyone with Temporal client access may name anyone): recorded
 * as `cli`, with the assurance `claimed`. The record's `assurance` is derived here, by the worker, never by the sender.
 * Pure: no workflow API (the check itself is ./index.ts `proved`).
 */
import { ANSWER_SOURCES, type AnswerBy, type AnswerSource } from '../messages.js';

/** The sources the inbox proves (stronger than `cli`): a record names one only when the worker checked its proof. */
export const PROVED_SOURCES = ['oidc', 'link', 'proxy', 'token'] as const satisfies readonly AnswerSource[];
export type ProvedSource = (typeof PROVED_SOURCES)[number];

/** How strongly the worker knows who answered, by the source it checked; `claimed`: Temporal client access only. */
export const ASSURANCES = {
  oidc: 'issuer-verified',
  link: 'signed-link',
  proxy: 'proxy-header',
  token: 'inbox-token',
} as const satisfies Record<ProvedSource, string>;
export type Assurance = (typeof ASSURANCES)[ProvedSource] | 'claimed';

/** What the record says of who answered (beside `by`): never the proof. */
export interface SenderRecord {
  /** A proved source, `cli`, or `claimed`; absent for a bare signal or update. */
  source?: AnswerSource | 'claimed';
  /** With `source: "claimed"`: the source the sender named and did not prove. */
  claimed?: ProvedSource;
  assurance: Assurance;
}

const isProved = (source: unknown): source is ProvedSource => (PROVED_SOURCES as readonly unknown[]).includes(source);

/** Who sent an answer, as its second argument says (untrusted: anything but `{ by: string }` counts as nothing). */
export function senderOf(sender: unknown): AnswerBy | undefined {
  if (!sender || typeof sender !== 'object' || typeof (sender as AnswerBy).by !== 'string') return undefined;
  const { source, person, link, proof } = sender as AnswerBy;
  return {
    by: (sender as AnswerBy).by,
    ...(link && typeof link === 'object' && typeof link.run === 'string' ? { link: { run: link.run.slice(0, 100) } } : {}),
    ...(ANSWER_SOURCES.includes(source as AnswerSource) ? { source } : {}),
    ...(typeof person === 'string' && person.trim() ? { person: person.slice(0, 200) } : {}),
    // Kept only to be checked (or forwarded to a child, which checks it): a proof is 43 characters.
    ...(typeof proof === 'string' && proof.length <= 100 ? { proof } : {}),
  };
}

/** Whether the sender names a source stronger than `cli` with a proof: only then does the worker check it. */
export function claimsProof(sender: AnswerBy | undefined): boolean {
  return isProved(sender?.source) && typeof sender?.proof === 'string';
}

/** The record of a sender: its source as proved (`proved`: the worker checked its proof), else claimed. */
export function recordOf(sender: AnswerBy | undefined, proved: boolean): SenderRecord {
  const source = sender?.source;
  if (isProved(source)) return proved ? { source, assurance: ASSURANCES[source] } : { source: 'claimed', claimed: source, assurance: 'claimed' };
  return { ...(source === 'cli' ? { source } : {}), assurance: 'claimed' };
}

/** The assurances, strongest first. */
const STRENGTH: readonly Assurance[] = [...Object.values(ASSURANCES), 'claimed'];

/**
 * The weaker of two records (N of M: the request's record is as strong as its weakest accept, so one claimed accept
 * among signed-in ones makes the whole record claimed).
 */
export function weaker(a: SenderRecord | undefined, b: SenderRecord): SenderRecord {
  return a && STRENGTH.indexOf(a.assurance) > STRENGTH.indexOf(b.assurance) ? a : b;
}
