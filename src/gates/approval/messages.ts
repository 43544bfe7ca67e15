/**
 * The approval gate's messages (docs/approvals.md): the activity's outcome that opens it (its JSON shape is recorded
 * in histories: it never changes), and what a call a person approved runs with. Pure types.
 */
import type { ApprovalContext } from '../../contract/approval.js';
import type { Request } from '../../contract/index.js';
import type { WorkerFeatures } from '../../contract/worker-features.js';

/**
 * The policy (or the call) wants a person's approval before the tool runs, and the call brings none: nothing ran. The
 * workflow records `request` (asked once: its id derives from the call id and the arguments' digest) and runs the call
 * again with the approved arguments, or returns a result saying the tool did not run.
 */
export interface CallMcpToolApprovalRequired extends WorkerFeatures {
  status: 'approval_required';
  request: Request;
  context: ApprovalContext;
  /** The policy's `expiresIn` (ms), when it sets one. */
  expiresInMs?: number;
}

/** A call a person approved: the arguments it runs, what the activity checks them against, and the result's metadata. */
export interface Approved {
  args: Record<string, unknown>;
  approved: { id: string; digest: string };
  metadata: Record<string, unknown>;
}
