/**
 * The legacy era (MCP ≤ 2025-11-25) in the call loop: a call released while it waits for a person (its activity
 * returned, nothing is held) waits for the request's resolution and then runs again, and the repeated
 * `elicitation/create` is answered from the record; the `-32042` URLElicitationRequiredError form is retried once
 * its URLs are done. Deterministic: workflow APIs only.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { FailureTypes } from '../../contract/failures.js';
import type { ElicitResult, Request } from '../../contract/index.js';
import type { ElicitationHost, RoundKey } from '../host/index.js';

/**
 * The activity released the call: record its request as pending and mark it released (an inline wait for it
 * ends). Returns the request id; the call loop then waits for its resolution (answer, expiry or withdrawal) and
 * runs the call again. (The wait itself stays in the loop: one `await` there, as the recorded histories ran.)
 */
export function recordRelease(host: ElicitationHost, callId: string, request: Request): string {
  const registered = host.register(request, callId);
  host.requests.markReleased(registered.id);
  return registered.id;
}

/**
 * After a `-32042` round: the call is simply run again once the URLs are done (no round state goes with it);
 * a URL the person refused ends the call.
 */
export function retryAfterUrls(
  host: ElicitationHost,
  input: { server: string; tool: string },
  requests: RoundKey[],
  responses: Record<string, ElicitResult>,
): undefined {
  const refused = requests.find((r) => responses[r.key]?.action !== 'accept');
  if (refused) {
    const how = host.requests.answerFor(refused.id)?.reason ?? 'not accepted';
    throw ApplicationFailure.nonRetryable(
      `tool "${input.tool}" of server "${input.server}" requires URL elicitation "${refused.id}", which was ${how}`,
      FailureTypes.UrlElicitationRefused,
    );
  }
  return undefined;
}
