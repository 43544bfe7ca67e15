/**
 * The approval gate of `callMcpTool` (docs/approvals.md): before the tool runs, the worker's policy for the server (its
 * config) and the call's own ask decide whether a person must approve it, with the tool as the session lists it (its
 * annotations, trusted only where the config says so). A call that needs an approval and brings none ends
 * `approval_required` (nothing ran); one that brings an approval runs only the arguments whose digest was approved.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { approvalRequest, argumentsDigest, needsApproval, NO_APPROVAL } from '../../contract/approval.js';
import { FailureTypes } from '../../contract/index.js';
import { argumentsProblemText, argumentsSchemaProblem, argumentsSizeProblem } from '../../contract/tool-arguments.js';
import type { McpToolInfo, ServerConfig } from '../../mcp/index.js';
import type { CallMcpToolApprovalRequired, CallMcpToolInput, WorkerFeatures } from '../../contract/activities.js';

/**
 * What the gate says of this attempt: `undefined`, the tool may run (no approval needed, or the approved arguments are
 * the ones given); else the approval the call needs. Arguments other than the approved ones fail the call.
 */
export function approvalGate(
  server: ServerConfig,
  input: CallMcpToolInput,
  tool: McpToolInfo | undefined,
  features: WorkerFeatures,
): CallMcpToolApprovalRequired | undefined {
  const approved = input.approval?.approved;
  if (approved) {
    const digest = argumentsDigest(input.arguments);
    if (digest !== approved.digest) {
      throw ApplicationFailure.nonRetryable(
        `tool "${input.tool}" of server "${input.server}" was given arguments other than the ones approved in "${approved.id}" ` +
          `(digest ${digest}, approved ${approved.digest}): it does not run`,
        FailureTypes.ApprovalMismatch,
      );
    }
    return undefined;
  }
  const policy = server.approval ?? NO_APPROVAL;
  const listed = tool ?? { name: input.tool };
  if (!needsApproval(policy, listed, input.approval?.ask)) return undefined;
  // What the person sees is what runs: arguments too large to show in full, or that the tool's schema refuses (a key it
  // does not declare would be in no form field), are refused before anyone is asked (docs/approvals.md).
  const args = input.arguments ?? {};
  const problem = argumentsSizeProblem(args) ?? argumentsSchemaProblem(tool?.inputSchema, args);
  if (problem) {
    throw ApplicationFailure.nonRetryable(
      `tool "${input.tool}" of server "${input.server}" needs an approval, and ${argumentsProblemText(problem)}: ` +
        'nobody was asked and the tool did not run',
      FailureTypes.InvalidInput,
      { field: problem.field },
    );
  }
  const { request, context } = approvalRequest({ callId: input.callId, server: input.server, arguments: input.arguments }, listed, policy);
  return { status: 'approval_required', request, context, ...(policy.expiresInMs !== undefined ? { expiresInMs: policy.expiresInMs } : {}), ...features };
}
