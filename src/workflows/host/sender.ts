/**
 * Who sent an answer, as the worker records it (docs/security.md "Channels", docs/people.md): a sender's `source` is a
 * claim until the worker checks it. The inbox proves the sources stronger than `cli` (a sign-in, an answer link, a
 * proxy's header, its token) with an HMAC under the answer-link key the worker shares (`AnswerBy.proof`); the workflow
 * cannot hold that key (its history is readable), so the `checkAnswerProof` local activity checks it, and only when a
 * sender names such a source with a proof. A source named without a valid proof is recorded as `claimed` (with what it
 * claimed), never as itself. `cli` is a claim by nature (anyone with Temporal client access may name anyone): recorded
 * as `cli`, with the assurance `claimed`. The record's `assurance` is derived here, by the worker, never by the sender.
 * Deterministic: workflow APIs only.
 */
import { log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index.js';
import type { Answer } from '../../contract/index.js';
import { ANSWER_SOURCES, type AnswerBy, type AnswerSource } from '../messages.js';
import { since, Versions } from '../versions.js';

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

/** The proof's check: a local activity (the key stays in the worker), short, retried briefly. */
const { checkAnswerProof } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumAttempts: 3 },
});

/**
 * Whether the sender's proof is the inbox's for this answer (`raw`: as it came), checked by the worker's key. The
 * workflow the inbox sent it to is this one, or the parent this workflow reports to (a pipeline forwards its step's
 * answers). A history recorded before the check (Versions.answerProof) never ran it: its proofs count as unproved.
 */
export async function proved(raw: unknown, sender: AnswerBy, reportsTo: string | undefined): Promise<boolean> {
  if (!claimsProof(sender) || !since(Versions.answerProof)) return false;
  try {
    return await checkAnswerProof({
      workflowId: reportsTo ?? workflowInfo().workflowId,
      answer: raw as Answer,
      by: sender.by!,
      source: sender.source!,
      ...(sender.person !== undefined ? { person: sender.person } : {}),
      ...(sender.link ? { link: sender.link } : {}),
      proof: sender.proof!,
    });
  } catch (err) {
    // The check could not run (no worker key, a failing worker): the source stays a claim.
    log.warn('could not check the proof of an answer: its source is recorded as claimed', { error: String(err) });
    return false;
  }
}
