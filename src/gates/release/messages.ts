/**
 * The release gate's messages: the outcome of a call that gave its session up while a person was asked (legacy era).
 * Its JSON shape is recorded in histories (the activity's result): it never changes. Pure types.
 */
import type { Request } from '../../contract/index.js';
import type { WorkerFeatures } from '../../contract/worker-features.js';

/** Why a call gave its session up. */
export type ReleaseReason = 'hold-expired' | 'server-gave-up' | 'session-needed' | 'worker-shutdown' | 'workflow-unreachable';

/** Legacy era: the call waited on a live session for a person and gave the session up (why: `reason`); the request waits on. */
export interface CallMcpToolReleased extends WorkerFeatures {
  status: 'released';
  request: Request;
  reason: ReleaseReason;
}
