/**
 * The release gate (the legacy era, MCP ≤ 2025-11-25): a call released while it waited for a person (its activity
 * returned, nothing is held) waits for the request's resolution and then runs again, and the repeated
 * `elicitation/create` is answered from the record. Deterministic: workflow APIs only.
 */
import type { Request } from '../../contract/index.js';
import type { ElicitationHost } from '../../workflows/host/index.js';
import { untilResolved, type GateWait } from '../step.js';

/**
 * The activity released the call: record its request as pending and mark it released (an inline wait for it
 * ends). Returns the request id; the call loop then waits for its resolution (answer, expiry or withdrawal) and
 * runs the call again.
 */
export function recordRelease(host: ElicitationHost, callId: string, request: Request): string {
  const registered = host.register(request, callId);
  host.waits.markReleased(registered.id);
  return registered.id;
}

/** The release gate's wait: the request's resolution, then the call runs again (answered from the record). */
export const releaseWait: GateWait<'release'> = (ctx, outcome) =>
  untilResolved(ctx, recordRelease(ctx.host, ctx.call.callId, outcome.request), () => ({ again: {} }));
