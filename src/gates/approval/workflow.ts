/**
 * Approvals in the call loop (docs/approvals.md): the activity said a person must approve the call first (nothing ran).
 * The approval is recorded as a pending request of this workflow (asked once: its id derives from the call id and the
 * digest of the proposed arguments, so a retry, a crash or a continue-as-new finds it pending or answered); once it is
 * resolved, the call runs with the approved arguments (their digest goes to the activity, recorded in history), or
 * returns a result saying the tool did not run. Deterministic: workflow APIs and the contract only.
 */
import { approvalMetadata, approvalStatusOf, approvedArguments, argumentsDigest, notApprovedResult, type ApprovalAnswered } from '../../contract/approval.js';
import type { ToolResult } from '../../contract/index.js';
import { approvalResolved } from '../../telemetry/workflow-metrics.js';
import type { ElicitationHost } from '../../workflows/host/index.js';
import type { ApprovalRequiredOutcome } from '../../workflows/tool-call/outcome.js';
import { untilResolved, type GateWait } from '../step.js';
import type { Approved } from './messages.js';

/** Record the approval the activity asks for as pending (idempotent); returns its id. */
export function recordApproval(host: ElicitationHost, callId: string, outcome: ApprovalRequiredOutcome): string {
  return host.register(outcome.request, callId, {
    ...(outcome.expiresInMs !== undefined ? { expiresInMs: outcome.expiresInMs } : {}),
    approval: outcome.context,
  }).id;
}

/** What the resolved approval decides: the arguments to run, or the result of a call whose tool did not run. */
export function approvalDecision(
  host: ElicitationHost,
  call: { server: string; tool: string; arguments?: Record<string, unknown> },
  outcome: ApprovalRequiredOutcome,
): { approved: Approved } | { result: ToolResult } {
  const id = outcome.request.id;
  const resolved = host.requests.resolutionOf(id);
  const answer = resolved?.answer ?? { id, ok: false, reason: 'cancelled' };
  const answered: ApprovalAnswered = {
    id,
    ...(resolved?.by !== undefined ? { by: resolved.by } : {}),
    ...(resolved?.at !== undefined ? { at: resolved.at } : {}),
    ...(resolved?.source !== undefined ? { source: resolved.source } : {}),
    ...(resolved?.assurance !== undefined ? { assurance: resolved.assurance } : {}),
  };
  const status = approvalStatusOf(answer);
  approvalResolved(call.server, call.tool, status);
  if (status !== 'approved') return { result: notApprovedResult(call, status, answered) };
  const args = approvedArguments(call.arguments, answer, outcome.context.editable);
  return { approved: { args, approved: { id, digest: argumentsDigest(args) }, metadata: approvalMetadata('approved', answered, args) } };
}

/** The tool's result with the approval's metadata (who approved, when, which arguments). */
export function withApproval(result: ToolResult, approved: Approved | undefined): ToolResult {
  return approved ? { ...result, metadata: { ...result.metadata, ...approved.metadata } } : result;
}

/** The approval gate's wait: record the approval, wait for a person's decision, then run the approved arguments or end. */
export const approvalWait: GateWait<'approval'> = (ctx, outcome) => {
  const id = recordApproval(ctx.host, ctx.call.callId, outcome);
  return untilResolved(ctx, id, () => {
    const decided = approvalDecision(ctx.host, ctx.input, outcome);
    return 'result' in decided ? decided : { again: { approved: decided.approved } };
  });
};
