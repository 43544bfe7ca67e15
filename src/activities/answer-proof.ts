/**
 * The `checkAnswerProof` local activity (docs/security.md "Who answered"): whether an answer's sender comes with the inbox's
 * proof (src/codec/answer-link.ts `answerProof`), under the answer-link key the worker shares with the inbox: the
 * config's `notify.linkKey`, else $DURABLE_MCP_ANSWER_LINK_KEY (the variable the inbox reads). No key (or a short one):
 * nothing is proved, and the answer's source is recorded as claimed. The proof is never logged.
 */
import { ANSWER_LINK_KEY_ENV, answerProofValid } from '../codec/answer-link.js';
import { expandEnv } from '../mcp/index.js';
import type { ActivityDeps } from './deps.js';
import type { CheckAnswerProofInput } from '../contract/activities.js';

/** The key the worker checks proofs with (undefined: none, or shorter than 32 characters). */
export function answerProofKey(deps: Pick<ActivityDeps, 'notify'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  let key: string | undefined;
  try {
    key =
      deps.notify?.linkKey !== undefined ? expandEnv(deps.notify.linkKey, { server: 'notify', field: 'linkKey' }, env) : env[ANSWER_LINK_KEY_ENV] || undefined;
  } catch {
    return undefined;
  }
  return key !== undefined && key.length >= 32 ? key : undefined;
}

export function checkAnswerProofActivity(deps: ActivityDeps) {
  return async function checkAnswerProof(input: CheckAnswerProofInput): Promise<boolean> {
    const key = answerProofKey(deps);
    if (key === undefined) return false;
    const { proof, ...rest } = input;
    return answerProofValid(key, rest, proof);
  };
}
