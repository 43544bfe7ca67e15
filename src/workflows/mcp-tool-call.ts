import { CancellationScope, ContinueAsNew, condition, getExternalWorkflowHandle, isCancellation, log, workflowInfo } from '@temporalio/workflow';
import type { ToolResult } from '../contract/index.js';
import type { NexusCaller } from '../contract/requests.js';
import type { ElicitationHost, HostSnapshot } from './host/index.js';
import { installElicitationHost } from './host/install.js';
import { continueAsNewWhenIdle, untilIdle } from './idle.js';
import { childDoneSignal } from './internal-messages.js';
import { executeMcpTool, type ExecuteMcpToolInput } from './tool-call/index.js';

/** Continue-as-new (while the call waits for a person) once a run has handled this many updates (Temporal allows 2,000). */
export const TOOL_CALL_MAX_UPDATES = 1_000;
/** … or once its history has this many events (Temporal warns at 10,240 and stops at 51,200). */
export const TOOL_CALL_MAX_HISTORY_EVENTS = 10_000;

/** The input of the workflow `mcpToolCall`: the call (as `executeMcpTool` takes it), and what a parent or a previous run adds. */
export interface McpToolCallInput extends ExecuteMcpToolInput {
  /**
   * Set by a pipeline that runs this call as its child: the child reports its pending requests and its
   * result to that workflow, so the pipeline's id is the one inbox.
   */
  reportTo?: { workflowId: string; step: string; callIdPrefix?: string };
  /** Set by the Nexus service (docs/nexus.md), never by its callers: who asked, from the caller's Nexus links. */
  caller?: NexusCaller;
  /** @internal carried across continue-as-new: the host's state, the call and the request it waits for. */
  continued?: { host: HostSnapshot; callId: string; waitingFor?: string; runs: number };
}

/** The workflow: one MCP tool call with durable elicitation. Returns the tool's result. */
export async function mcpToolCall(input: McpToolCallInput): Promise<ToolResult> {
  const host = installElicitationHost(input?.continued?.host);
  const reportTo = input?.reportTo;
  if (reportTo) host.reportToParent(reportTo.workflowId, reportTo.step, reportTo.callIdPrefix);
  let result: ToolResult;
  try {
    const call = executeMcpTool(input, {
      step: reportTo?.step,
      continueAsNew: () => nearLimits(host),
      ...(input?.continued ? { callId: input.continued.callId, resumeAfter: input.continued.waitingFor } : {}),
    });
    // A long wait for a person continues as new (bounded history and updates). A call waiting in a modern-era
    // (MRTR) round is carried at its round (see continueWhileWaiting).
    result = await Promise.race([call, continueWhileWaiting(host, input, call)]);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    host.answerWatchersNow();
    // The call's own requests were withdrawn as it failed (executeMcpTool). A child also tells its parent,
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
  await untilIdle(host);
  return result;
}

/** The run nears Temporal's limits: history events or size as Temporal suggests, or the updates handled. */
function nearLimits(host: ElicitationHost): boolean {
  return workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= TOOL_CALL_MAX_HISTORY_EVENTS || host.updatesHandled >= TOOL_CALL_MAX_UPDATES;
}

async function report(to: { workflowId: string; step: string }, done: { result?: ToolResult; error?: string }): Promise<void> {
  try {
    await getExternalWorkflowHandle(to.workflowId).signal(childDoneSignal, { child: workflowInfo().workflowId, step: to.step, ...done });
  } catch (err) {
    log.warn('could not report the result to the parent workflow', { error: String(err) });
  }
}

/**
 * While the call runs, continue as new whenever the run nears Temporal's limits (history events or size as
 * Temporal suggests, or the updates handled) and the call only waits, released, for a person: the host's
 * state (pending requests, recorded answers, the call) and the request it waits for go to the next run.
 */
async function continueWhileWaiting(host: ElicitationHost, input: McpToolCallInput, call: Promise<ToolResult>): Promise<never> {
  let done = false;
  void call.then(
    () => (done = true),
    () => (done = true),
  );
  const callId = () => input.continued?.callId ?? host.requests.soleCallId();
  // Waiting for a person: a released legacy-era call (run again once its request is resolved), or a call in a
  // modern-era (MRTR) round, whose round (number, requestState, request ids) the host's snapshot carries: the
  // next run resumes it at that round (executeMcpTool), not at round 1. Or a call following an MCP task, between
  // two watches or waiting for its questions: the snapshot carries the task and the next run goes on watching it.
  const waiting = () => {
    const id = callId();
    return id !== undefined && host.waits.isWaiting(id);
  };
  // Only the call ends the workflow (or this loop's continue-as-new): a cancellation reaches the call, which
  // withdraws its requests before the run ends, so this loop just stops waiting.
  const never = () => new Promise<never>(() => undefined);
  for (;;) {
    try {
      await condition(() => done || (nearLimits(host) && waiting()));
      if (done) return never();
      // An answer may have arrived meanwhile (the call runs again): continue only while it still waits.
      await continueAsNewWhenIdle<typeof mcpToolCall>(host, () => {
        if (done || !waiting()) return undefined;
        const id = callId()!;
        return {
          ...input,
          continued: { host: host.snapshot(), callId: id, waitingFor: host.waits.waitingFor(id), runs: (input.continued?.runs ?? 1) + 1 },
        };
      });
    } catch (err) {
      if (isCancellation(err)) return never();
      throw err;
    }
  }
}
