/**
 * How a request ended, from its answer: the one function for it, used by the memo's resolutions and the late-answer
 * refusals (host), the login's ended sign-in, and the `requests_resolved` metric (which counts it under the MCP
 * action's words: accept, decline, cancel, expired). Deterministic: no workflow API.
 */
import type { Answer } from './index.js';

/** How a request ended: a person accepted, declined or cancelled it, or it expired (an `expired` answer). */
export type RequestOutcome = 'accepted' | 'declined' | 'cancelled' | 'expired';

/** How the request `answer` answers ended: any refusal but `declined` and `expired` counts as `cancelled`. */
export function requestOutcomeOf(answer: Answer): RequestOutcome {
  if (answer.ok) return 'accepted';
  return answer.reason === 'expired' ? 'expired' : answer.reason === 'declined' ? 'declined' : 'cancelled';
}
