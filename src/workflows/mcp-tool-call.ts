import { CancellationScope, allHandlersFinished, condition, getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import type { ToolResult } from '../contract/index.js';
import { useElicitationHost } from './host.js';
import { childDoneSignal } from './messages.js';
import { executeMcpTool, type McpToolCallInput } from './tool-call.js';

export interface McpToolCallWorkflowInput extends McpToolCallInput {
  /**
   * Set by a pipeline that runs this call as its child: the child reports its pending requests and its
   * result to that workflow, so the pipeline's id is the one inbox.
   */
  reportTo?: { workflowId: string; step: string; callIdPrefix?: string };
}

/** The workflow: one MCP tool call with durable elicitation. Returns the tool's result. */
export async function mcpToolCall(input: McpToolCallWorkflowInput): Promise<ToolResult> {
  const host = useElicitationHost();
  const reportTo = input?.reportTo;
  if (reportTo) host.reportToParent(reportTo.workflowId, reportTo.step, reportTo.callIdPrefix);
  let result: ToolResult;
  try {
    result = await executeMcpTool(input, { step: reportTo?.step });
  } catch (err) {
    host.close();
    // The call's own requests were withdrawn as it failed (runToolCall). A child also tells its parent,
    // even when cancelled, or the parent would wait forever.
    if (reportTo) {
      await CancellationScope.nonCancellable(async () => {
        host.finishAll();
        await report(reportTo, { error: (err as Error).message });
      });
    }
    throw err;
  }
  if (reportTo) await report(reportTo, { result });
  host.close();
  await condition(allHandlersFinished);
  return result;
}

async function report(to: { workflowId: string; step: string }, done: { result?: ToolResult; error?: string }): Promise<void> {
  try {
    await getExternalWorkflowHandle(to.workflowId).signal(childDoneSignal, { child: workflowInfo().workflowId, step: to.step, ...done });
  } catch (err) {
    log.warn('could not report the result to the parent workflow', { error: String(err) });
  }
}
