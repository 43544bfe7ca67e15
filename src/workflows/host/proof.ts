/**
 * The check of an answer's proof (./sender.ts, docs/security.md "Who answered"): the inbox's HMAC of the sender under the
 * key it shares with the worker, checked by the `checkAnswerProof` local activity (the key stays in the worker; the
 * workflow's history is readable). Deterministic: workflow APIs only.
 */
import { log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Answer } from '../../contract/index.js';
import type { AnswerBy } from '../messages.js';
import { since, Versions } from '../versions.js';
import { answerId } from './registry.js';
import { claimsProof } from './sender.js';
import type { DurableMcpActivities } from '../../contract/activities.js';

/** The proof's check: a local activity, short, retried briefly. */
const { checkAnswerProof } = proxyLocalActivities<DurableMcpActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumAttempts: 3 },
});

/**
 * Whether the sender's proof is the inbox's for this answer (`raw`: as it came), checked by the worker's key: only for an
 * answer recorded here, when the sender names a source stronger than `cli` with a proof (undefined: no check; a child's
 * answer is forwarded with its proof, and the child checks it). The inbox sent it to this workflow, or to the parent it
 * reports to (a pipeline forwards its step's answers). A history recorded before the check (Versions.answerProof) never
 * ran it: its proofs count as unproved.
 */
export function answerProved(
  raw: unknown,
  sender: AnswerBy | undefined,
  here: { ownedByChild(id: string): boolean; parent: string | undefined },
): Promise<boolean> | undefined {
  if (!sender || !claimsProof(sender)) return undefined;
  const id = answerId(raw);
  if (typeof id !== 'string' || here.ownedByChild(id)) return undefined;
  if (!since(Versions.answerProof)) return Promise.resolve(false);
  const input = {
    workflowId: here.parent ?? workflowInfo().workflowId,
    answer: raw as Answer,
    by: sender.by!,
    source: sender.source!,
    ...(sender.person !== undefined ? { person: sender.person } : {}),
    ...(sender.link ? { link: sender.link } : {}),
    proof: sender.proof!,
  };
  return checkAnswerProof(input).catch((err) => {
    // The check could not run (a failing worker): the source stays a claim.
    log.warn('could not check the proof of an answer: its source is recorded as claimed', { error: String(err) });
    return false;
  });
}
