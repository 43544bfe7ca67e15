/**
 * The `checkAnswerProof` local activity (docs/security.md "Who answered"): whether an answer's sender comes with the inbox's
 * proof (src/codec/answer-link.ts `answerProof`), under the answer-link key the worker shares with the inbox: the
 * config's `notify.linkKey`, else $DURABLE_MCP_ANSWER_LINK_KEY (the variable the inbox reads). No key (or a short one):
 * nothing is proved, and the answer's source is recorded as claimed. The proof is never logged.
 */
import { answerProofValid } from '../codec/answer-link.js';
import type { CheckAnswerProofInput } from '../contract/activities.js';
import { answerLinkKey, type ActivityDeps } from './deps.js';

/** The key the worker checks proofs with (./deps.ts `answerLinkKey`); undefined (none, an unset variable, a short key) proves nothing. */
export function answerProofKey(deps: Pick<ActivityDeps, 'notify'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const link = answerLinkKey(deps.notify, { orEnv: true, env });
  return link.status === 'key' ? link.key : undefined;
}

export function checkAnswerProofActivity(deps: ActivityDeps) {
  return async function checkAnswerProof(input: CheckAnswerProofInput): Promise<boolean> {
    const key = answerProofKey(deps);
    if (key === undefined) return false;
    const { proof, ...rest } = input;
    return answerProofValid(key, rest, proof);
  };
}
