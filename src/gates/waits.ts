/**
 * The workflow's side of the gates (./table.ts): each waiting gate's wait, from its folder. A row without its wait (or
 * the reverse) does not compile. Deterministic: workflow APIs only.
 */
import type { CallOutcome } from '../workflows/tool-call/outcome.js';
import { approvalWait } from './approval/workflow.js';
import { loginWait } from './login/workflow.js';
import { releaseWait } from './release/workflow.js';
import { roundWait } from './round/workflow.js';
import type { GateContext, GateWait, Step } from './step.js';
import { gateOf, type WaitingKind } from './table.js';
import { taskWait } from './task/workflow.js';

/** Each waiting gate's wait. */
export const gateWaits: { [K in WaitingKind]: GateWait<K> } = {
  approval: approvalWait,
  login: loginWait,
  round: roundWait,
  task: taskWait,
  release: releaseWait,
};

/** Open the gate the activity's outcome names. */
export function openGate(ctx: GateContext, outcome: Exclude<CallOutcome, { status: 'completed' }>): Step {
  return (gateWaits[gateOf(outcome.status)] as GateWait<WaitingKind>)(ctx, outcome as never);
}
