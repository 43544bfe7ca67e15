/**
 * Call an MCP tool from inside any workflow, with durable elicitation. This is the library entry for
 * workflow authors: `await executeMcpTool({ server, tool, arguments })` in your own workflow (the activity it
 * schedules is `callMcpTool`; the helper has its own name, so the two are never confused).
 * This file holds the call loop: run the activity; while the call waits, the gate its outcome opens waits (src/gates:
 * approval, login, round, task, release; the table in src/gates/table.ts); then run it again.
 */
import { RetryState } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
} from '@temporalio/workflow';
import { normalizeAssignees, type Assignees } from '../../contract/assignees.js';
import type { ToolResult } from '../../contract/index.js';
import type { NexusCaller } from '../../contract/requests.js';
import type { Duration } from '../duration.js';
import type { CallAnswer, ElicitationHost } from '../host/index.js';
import type { NewCall } from '../host/registry.js';
import { useElicitationHost } from '../host/install.js';
import { durationOption, invalidInput, toolCallInputProblem } from '../input.js';
import { withApproval } from '../../gates/approval/workflow.js';
import type { NextRound, RoundWait } from '../../gates/round/messages.js';
import { followTask } from '../../gates/task/workflow.js';
import { DEFAULT_MAX_ROUNDS, roundSteps } from '../../gates/round/workflow.js';
import type { GateContext, Step } from '../../gates/step.js';
import { openGate } from '../../gates/waits.js';
import type { CallMcpToolInput, DurableMcpActivities } from '../../contract/activities.js';
import type { CallOutcome } from './outcome.js';

export interface ElicitationOptions {
  /** How long a request may stay unanswered before it expires into `cancel` (a Duration: ms or "24h"; default 24 h). */
  expiresIn?: Duration;
  /** How long a waiting tool call holds its MCP session and worker slot before it is released (a Duration; default 3 min). */
  holdFor?: Duration;
  /**
   * Notify the assignees again when a request is still unanswered after this long (a Duration; docs/people.md).
   * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
   */
  remindAfter?: Duration;
  /**
   * When a request is still unanswered after this long (a Duration), add `escalateTo` to its assignees and notify them.
   * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
   */
  escalateAfter?: Duration;
  /**
   * Who is added at `escalateAfter` (users, roles).
   * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
   */
  escalateTo?: Assignees;
}

/** The input of `executeMcpTool` (and of the workflow `mcpToolCall`, which adds its own fields). */
export interface ExecuteMcpToolInput {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
  elicitation?: ElicitationOptions;
  /** Timeout of one `tools/call` (a Duration: ms or "1h"; default 1 h). */
  toolTimeout?: Duration;
  /** Heartbeat timeout of the activity (a Duration: ms or "30s"; default 30 s): how fast a dead worker is noticed. */
  heartbeatTimeout?: Duration;
  /**
   * Attempts of the activity before the call fails (default 10, with backoff from 1 s to 30 s): an MCP server
   * that keeps failing to start fails the call after this many. Calls released to wait for a human do not count.
   */
  maxAttempts?: number;
  /**
   * Modern era (MCP 2026-07-28): at most this many `input_required` rounds before the call fails with
   * `RoundLimitExceeded` (default 10, like the SDKs; at most 100). Rounds with only `requestState` count.
   */
  maxRounds?: number;
  /** A server behind OAuth that signs in per call (`"principal": "per-call"`): whose login this call uses. */
  auth?: { principal?: string };
  /**
   * `"always"`: a person approves this call before the tool runs, whatever the server's policy (a call may ask for more
   * than the policy, never less; docs/approvals.md).
   */
  approval?: 'always';
  /**
   * Who may answer this call's requests (docs/people.md): users (emails or subjects) and roles. Default: the login's
   * principal (`auth.principal`) when there is one, else anyone allowed into the inbox.
   * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
   */
  assignees?: Assignees;
  /**
   * N of M (docs/people.md): each of the call's requests (its approval, its yes/no forms) needs this many distinct people
   * to accept, with the same answer; one decline declines (default 1).
   * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
   */
  approvals?: number;
}

export interface CallOptions {
  /** A label shown with the call's pending requests (pipelines use the step name). */
  step?: string;
  /** A stable call id; by default the host assigns `c1`, `c2`, … in call order. */
  callId?: string;
  /** Resume a released call (after continue-as-new): wait for this request's resolution before the first attempt. */
  resumeAfter?: string;
  /** Report who answered the call's requests as the result's `metadata.answers` (docs/failures.md; agents do). */
  reportAnswers?: boolean;
  /** Whether the run should continue as new now (`mcpToolCall`'s limits): a call following an MCP task parks for it. */
  continueAsNew?: () => boolean;
  /**
   * The call cannot hold for a person (an agent's tool its listing marked `inline`; Versions.agentFastPath): its first
   * attempt runs as a local activity, which hands the call back to the activity, before anything runs, when it could hold.
   */
  inline?: boolean;
}

/** The assignees of a call's requests: its own, else its login's principal (absent: anyone). */
export function assigneesOf(input: Pick<ExecuteMcpToolInput, 'assignees' | 'auth'>): { assignees?: Assignees } {
  const assignees = normalizeAssignees(input.assignees ?? (input.auth?.principal ? { users: [input.auth.principal] } : undefined));
  return assignees ? { assignees } : {};
}

/** A call's reminder and escalation (checked: a Duration each, and whom to escalate to). */
export function followUpsOf(e: ElicitationOptions | undefined): { remindAfterMs?: number; escalateAfterMs?: number; escalateTo?: Assignees } {
  const remindAfterMs = durationOption('elicitation.remindAfter', e?.remindAfter);
  const escalateAfterMs = durationOption('elicitation.escalateAfter', e?.escalateAfter);
  const escalateTo = normalizeAssignees(e?.escalateTo);
  return {
    ...(remindAfterMs !== undefined ? { remindAfterMs } : {}),
    ...(escalateAfterMs !== undefined ? { escalateAfterMs } : {}),
    ...(escalateTo ? { escalateTo } : {}),
  };
}

/** A call's record in the host, from its input (`step`: the label its requests show). */
export function newCallOf(
  input: Pick<ExecuteMcpToolInput, 'server' | 'tool' | 'arguments' | 'elicitation' | 'assignees' | 'auth' | 'approvals'> & { caller?: NexusCaller },
  step?: string,
): NewCall {
  return {
    server: input.server,
    tool: input.tool,
    step,
    arguments: input.arguments,
    expiresInMs: input.elicitation?.expiresIn,
    holdForMs: input.elicitation?.holdFor,
    ...assigneesOf(input),
    ...followUpsOf(input.elicitation),
    ...(input.approvals !== undefined && input.approvals > 1 ? { requiredApprovals: input.approvals } : {}),
    // Set only by the Nexus service (mcpToolCall's `caller`): who asked, shown with the call's requests.
    ...(input.caller !== undefined ? { caller: input.caller } : {}),
  };
}

/** Default `maxAttempts`. */
export const DEFAULT_MAX_ATTEMPTS = 10;

/** Checks the input (the shared check, src/workflows/input.ts); returns the duration options in ms. */
function validateInput(input: ExecuteMcpToolInput): { toolTimeoutMs?: number; heartbeatTimeoutMs?: number } {
  const problem = toolCallInputProblem(input);
  if (problem) invalidInput(problem);
  return { toolTimeoutMs: durationOption('toolTimeout', input.toolTimeout), heartbeatTimeoutMs: durationOption('heartbeatTimeout', input.heartbeatTimeout) };
}

/**
 * Run one MCP tool call as the activity `callMcpTool`, durably: an elicitation becomes a pending
 * request of this workflow; when the call is released (after `holdFor`, when the MCP server gives up,
 * or when the worker dies) the workflow waits for the answer and runs the call again, and the repeated
 * elicitation is answered from the record without asking the human again.
 */
export async function executeMcpTool(input: ExecuteMcpToolInput, options: CallOptions = {}): Promise<ToolResult> {
  const host = useElicitationHost();
  const durations = validateInput(input);
  const call = host.requests.newCall(newCallOf(input, options.step), options.callId);
  const toolTimeoutMs = durations.toolTimeoutMs ?? 60 * 60 * 1000;
  const activityOptions: ActivityOptions = {
    startToCloseTimeout: toolTimeoutMs + call.holdForMs + 60_000,
    heartbeatTimeout: durations.heartbeatTimeoutMs ?? 30_000,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS },
  };
  const { callMcpTool } = proxyActivities<DurableMcpActivities>(activityOptions);
  const activity = options.inline ? inlineFirst(callMcpTool, activityOptions, toolTimeoutMs) : (callMcpTool as Attempt);
  // Resumed after continue-as-new: a call that waited in a modern-era round resumes at that round (its number,
  // requestState and request ids came with the host's snapshot); a released legacy call waits, then runs again.
  const resumeRound = options.resumeAfter ? host.waits.roundWaitOf(call.callId) : undefined;
  if (options.resumeAfter && !resumeRound && !host.waits.taskWaitOf(call.callId)) {
    host.waits.setWaiting(call.callId, options.resumeAfter);
    await condition(() => host.requests.isResolved(options.resumeAfter!));
    host.waits.setWaiting(call.callId, undefined);
  }
  // Resumed after continue-as-new while it followed an MCP task: go on watching that task (never a second tools/call).
  const resumeTask = host.waits.taskWaitOf(call.callId);
  const loop = { ...call, reportAnswers: options.reportAnswers === true, continueAsNew: options.continueAsNew };
  // A call that fails for good withdraws its pending requests.
  try {
    if (resumeTask) return withAnswers(await followTask(host, call.callId, input, resumeTask, loop), host.finishCall(call.callId), loop.reportAnswers);
    // The `tools/call` also covers the inline wait for a human (up to holdFor): never cut that short.
    return await callLoop(host, loop, input, activity, toolTimeoutMs + call.holdForMs, resumeRound);
  } catch (err) {
    host.finishCall(call.callId);
    throw repeatedFailure(err, activityOptions.retry!.maximumAttempts!);
  }
}

/** One attempt of a call as the loop runs it (the activity's outcomes; `regular` is the inline attempt's own). */
type Attempt = (input: CallMcpToolInput) => Promise<CallOutcome>;

/**
 * The attempts of a call whose first one runs inline, as a local activity (its result is in history, a marker, as an
 * activity's is; a crash before the workflow task completes runs it again, as a crash before an activity completes
 * does). It can hold for nobody: on a session that could (legacy era, a tool asking the old way, OAuth) it returns
 * `regular` before anything runs, and the attempt runs as the activity. A failed inline attempt counts as one of the
 * call's attempts: the activity then has the others (a non-retryable failure or a cancellation ends the call as it is).
 * Every later attempt (after a gate: an approval, a round, a login) is the activity.
 */
function inlineFirst(regular: DurableMcpActivities['callMcpTool'], options: ActivityOptions, toolTimeoutMs: number): Attempt {
  let first = true;
  const { callMcpTool: local } = proxyLocalActivities<DurableMcpActivities>({ startToCloseTimeout: toolTimeoutMs + 60_000, retry: { maximumAttempts: 1 } });
  return async (input) => {
    if (!first) return (await regular(input)) as CallOutcome;
    first = false;
    let outcome;
    try {
      outcome = await local({ ...input, inline: true });
    } catch (err) {
      const attempts = options.retry!.maximumAttempts!;
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (isCancellation(err) || attempts <= 1 || (cause instanceof ApplicationFailure && cause.nonRetryable)) throw err;
      const { callMcpTool: rest } = proxyActivities<DurableMcpActivities>({ ...options, retry: { ...options.retry, maximumAttempts: attempts - 1 } });
      return (await rest(input)) as CallOutcome;
    }
    if (outcome.status !== 'regular') return outcome;
    return (await regular({ ...input, ...(outcome.oldWay ? { oldWay: true as const } : {}) })) as CallOutcome;
  };
}

/**
 * A call that failed on every one of its attempts (a retryable failure, `maxAttempts` times): its failure says so, so
 * that a failure repeated until the limit reads as what it is. The same failure chain (ActivityFailure → its cause), the
 * cause's type and details kept; only its message grows.
 */
function repeatedFailure(err: unknown, maxAttempts: number): unknown {
  if (!(err instanceof ActivityFailure) || err.retryState !== RetryState.MAXIMUM_ATTEMPTS_REACHED || maxAttempts <= 1) return err;
  const cause = err.cause;
  if (!(cause instanceof ApplicationFailure) || cause.nonRetryable) return err;
  const repeated = ApplicationFailure.create({
    message: `${cause.message} (this failure ended each of the call's ${maxAttempts} attempts, its maxAttempts: it is not tried again)`,
    ...(cause.type ? { type: cause.type } : {}),
    ...(cause.details?.length ? { details: [...cause.details] } : {}),
  });
  return new ActivityFailure(err.message, err.activityType, err.activityId, err.retryState, err.identity, repeated);
}

/**
 * The call loop: run the activity; a completed call returns; any other outcome opens its gate (src/gates: approval,
 * login, round, task, release), whose steps the loop runs here until the gate says run again or end the call.
 */
async function callLoop(
  host: ElicitationHost,
  call: { callId: string; holdForMs: number; expiresInMs: number; reportAnswers: boolean; continueAsNew?: () => boolean },
  input: ExecuteMcpToolInput,
  activity: Attempt,
  toolTimeoutMs: number,
  resume?: RoundWait,
): Promise<ToolResult> {
  const ctx: GateContext = { host, input, call, state: { round: resume?.round ?? 1, maxRounds: input.maxRounds ?? DEFAULT_MAX_ROUNDS, logins: 0 } };
  // Modern era: what the next round carries from the previous one.
  let next: NextRound | undefined;
  // A round carried across continue-as-new: wait for its requests (the host restored them), then go on.
  let step: Step | undefined = resume ? roundSteps(ctx, resume) : undefined;
  for (;;) {
    if (!step) {
      const { approved } = ctx.state;
      const outcome = await activity({
        server: input.server,
        tool: input.tool,
        // A call a person approved runs the approved arguments only (docs/approvals.md).
        arguments: approved ? approved.args : input.arguments,
        ...(approved ? { approval: { approved: approved.approved } } : input.approval === 'always' ? { approval: { ask: 'always' } } : {}),
        callId: call.callId,
        recorded: host.requests.recordedFor(call.callId),
        toolTimeoutMs,
        ...(next ? { round: next } : {}),
        ...(input.auth?.principal !== undefined ? { principal: input.auth.principal } : {}),
      });
      if (outcome.status === 'completed') return withAnswers(withApproval(outcome.result, approved), host.finishCall(call.callId), call.reportAnswers);
      host.useWorkerFeatures(outcome);
      step = openGate(ctx, outcome);
    }
    // The gate's wait. Every wait of a call is an `await` here, none inside a helper: the recorded histories order a
    // request's timer cancellation and the next activity as these awaits run.
    while (!('again' in step) && !('result' in step)) {
      if ('until' in step) {
        await condition(step.until);
        step = step.then();
      } else {
        step = step.then(await step.run());
      }
    }
    if ('result' in step) return withAnswers(step.result, host.finishCall(call.callId), call.reportAnswers);
    const { again } = step;
    if (again.approved) ctx.state.approved = again.approved;
    if ('next' in again) {
      next = again.next;
      ctx.state.round++;
    }
    step = undefined;
  }
}

/** Who answered the call's requests, how and when, as `metadata.answers` when asked for (none asked: the result as it is). */
function withAnswers(result: ToolResult, answers: CallAnswer[], report: boolean): ToolResult {
  return report && answers.length > 0 ? { ...result, metadata: { ...result.metadata, answers } } : result;
}
