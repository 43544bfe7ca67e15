/**
 * The legacy era (MCP ≤ 2025-11-25) in the activities plane. An `elicitation/create` on the live session is
 * handed to the activity's own workflow (the `durable-mcp.elicit` update, whose id is the deterministic request
 * id) while the call holds its session; the tool call heartbeats meanwhile. The call is released (session
 * closed, activity completed with the request) when the workflow says so (holdFor expired), when the server
 * gives up on its request, when another call needs the session, or when the worker shuts down. A `-32042`
 * URLElicitationRequired error becomes the `form: "url-error"` outcome.
 */
import { ApplicationFailure, type Context } from '@temporalio/activity';
import {
  answerToElicitResult,
  deriveRequestId,
  elicitationToRequest,
  ELICIT_UPDATE,
  FailureTypes,
  type ElicitParams,
  type ElicitResult,
  type Request,
} from '../contract/index.js';
import { urlInputRequests, type ElicitationHandler, type Lease, type UrlRequiredRound } from '../mcp/index.js';
import { elicitationSpan } from '../telemetry/tool-call-tracing.js';
import type { ElicitInput, ElicitOutcome } from '../workflows/internal-messages.js';
import { clientOf, workerFlags, type ActivityDeps } from './deps.js';
import { elicitSlots } from './update-slots.js';
import { admittedOrFail } from './failures.js';
import type { CallMcpToolInput, CallMcpToolUrlRequired, ElicitationRequests, ReleaseReason, WorkerFlags } from './types.js';

/** What a call does now, in its heartbeat details: leasing, calling, or waiting for a person (for which request). */
export type CallPhase = { state: 'leasing' | 'calling' } | { state: 'waiting'; requestId: string };

/** The state of a tool call that its elicitations change. */
export interface CallState {
  phase: CallPhase;
  /** The context of the call's span, the parent of each elicitation's span. */
  traceContext: Parameters<typeof elicitationSpan>[0];
}

/** The tool call an elicitation happens in: what the handler reads and what it may do to the call. */
export interface ElicitingCall {
  ctx: Context;
  input: CallMcpToolInput;
  workflowId: string;
  runId: string | undefined;
  lease: Lease;
  /** Aborts the `tools/call` (the activity was cancelled while a person was being asked). */
  callAbort: AbortController;
  /** What the call does now, shared with the tool call (its heartbeat, its cancellation). */
  state: CallState;
  /** Release the call with `request` (once; later calls do nothing). */
  release(request: Request, reason: ReleaseReason): void;
  readonly released: boolean;
}

function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** One `abort` listener on a shared signal, calling every callback added (and not yet removed) when it fires. */
function fanOut(signal: AbortSignal | undefined) {
  const callbacks = new Set<() => void>();
  const fire = () => {
    for (const fn of [...callbacks]) fn();
  };
  signal?.addEventListener('abort', fire, { once: true });
  return {
    /** Calls `fn` at once when the signal has already fired; returns its removal. */
    add(fn: () => void): () => void {
      if (signal?.aborted) {
        fn();
        return () => undefined;
      }
      callbacks.add(fn);
      return () => void callbacks.delete(fn);
    },
    dispose(): void {
      signal?.removeEventListener('abort', fire);
      callbacks.clear();
    },
  };
}

/**
 * The elicitation handler of one call's session, and its disposal (after the call). It answers from the
 * answers the workflow already recorded, or asks the workflow and waits for the answer or a release.
 */
export function legacyElicitations(deps: ActivityDeps, call: ElicitingCall): { handler: ElicitationHandler; dispose(): void } {
  const { ctx, input, workflowId, runId, lease } = call;
  let ordinal = 0;
  // When the call last started waiting for a person (performance.now()).
  let waitingSince = 0;
  // Another call waits for a session: give this one up only while it merely waits for a human, and has for the
  // grace (before it, the pool counts the waiter as unserved, and the grace's end offers the session).
  const pressureListeners = new Set<() => void>();
  lease.onPressure(() => {
    if (call.state.phase.state !== 'waiting' || call.released || pressureListeners.size === 0) return false;
    if (performance.now() - waitingSince < lease.handoverGraceMs) return false;
    for (const l of pressureListeners) l();
    return true;
  });

  // One listener per shared signal for the whole call, fanned out to the elicitations waiting at that
  // moment: a listener per elicitation on the activity's or the worker's signal would pile up (a server
  // may elicit many times at once; Node warns past 10).
  const onCancelled = fanOut(ctx.cancellationSignal);
  const onShutdown = fanOut(deps.shutdown);
  // Aborted when the call is over: elicitations still waiting for a slot stop waiting.
  const disposed = new AbortController();
  const onDisposed = fanOut(disposed.signal);

  const handler = async (params: ElicitParams, serverSignal: AbortSignal): Promise<ElicitResult> => {
    const id = deriveRequestId(input.callId, ++ordinal, params);
    const mode = params.mode === 'url' ? 'url' : 'form';
    const recorded = input.recorded?.[id];
    const request = elicitationToRequest(params, { id });
    const span = elicitationSpan(call.state.traceContext, id, request.kind);
    if (recorded) {
      span.end('recorded');
      return answerToElicitResult(recorded, { mode });
    }
    if (call.state.phase.state !== 'waiting') waitingSince = performance.now();
    call.state.phase = { state: 'waiting', requestId: id };

    // Every listener added for this wait is removed after it (a long-running worker must not leak them).
    const cleanups: Array<() => void> = [];
    let promised = false;
    const interrupted = new Promise<ReleaseReason>((resolve) => {
      const listen = (signal: AbortSignal | undefined, fn: () => void) => {
        if (!signal) return;
        if (signal.aborted) return fn();
        signal.addEventListener('abort', fn, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', fn));
      };
      // Released at once, synchronously: the server's result for the tool call (typically an error about the
      // unanswered elicitation) may be in the same read as its cancellation, and must not complete the call.
      listen(serverSignal, () => {
        call.release(request, 'server-gave-up');
        resolve('server-gave-up');
      });
      cleanups.push(
        onCancelled.add(() => {
          const reason = ctx.cancellationSignal.reason;
          const shutdown = reason === 'WORKER_SHUTDOWN' || (reason instanceof Error && reason.message === 'WORKER_SHUTDOWN');
          if (shutdown) resolve('worker-shutdown');
          else call.callAbort.abort(reason);
        }),
      );
      cleanups.push(onShutdown.add(() => resolve('worker-shutdown')));
      const onPressure = () => {
        promised = true;
        resolve('session-needed');
      };
      pressureListeners.add(onPressure);
      cleanups.push(() => pressureListeners.delete(onPressure));
      // After the grace, if a caller waits for a session of this server and no other holder promised one: give
      // this one up.
      const graceLeft = Math.max(0, lease.handoverGraceMs - (performance.now() - waitingSince));
      const grace = setTimeout(() => {
        if (lease.offer()) onPressure();
      }, graceLeft);
      cleanups.push(() => clearTimeout(grace));
    });
    // A slot of this run first (./update-slots.ts): past the limit on updates in flight, Temporal drops the run's state.
    // The wait ends with the call, or when this elicitation is interrupted.
    let interruption: ReleaseReason | undefined;
    const stopWaiting = new AbortController();
    void interrupted.then((r) => {
      interruption = r;
      stopWaiting.abort();
    });
    cleanups.push(onDisposed.add(() => stopWaiting.abort()));
    const free = await elicitSlots.acquire(workflowId, runId, stopWaiting.signal);
    if (!free || interruption || call.released) {
      free?.();
      for (const c of cleanups) c();
      span.end(interruption ? `released: ${interruption}` : 'released');
      // Interrupted, or released meanwhile by another of its requests: this one never reached the workflow, and a
      // re-run asks it again.
      if (interruption) call.release(request, interruption);
      return never();
    }
    const handle = clientOf(deps, ctx).workflow.getHandle(workflowId, runId);
    const update: Promise<{ outcome?: ElicitOutcome; error?: unknown }> = handle
      .executeUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE, { args: [{ callId: input.callId, request, ...workerFlags(deps) }], updateId: id })
      .then(
        (outcome) => ({ outcome }),
        (error) => ({ error }),
      )
      .finally(free);
    const first = await Promise.race([update.then((u) => ({ u })), interrupted.then((r) => ({ r }))]);
    for (const c of cleanups) c();
    span.end('u' in first ? (first.u.outcome?.status ?? 'workflow-unreachable') : `released: ${first.r}`);
    // This session was promised to a waiting call: keep the promise (the answer is recorded; a re-run uses it).
    if (promised && 'u' in first && first.u.outcome?.status === 'answered') {
      call.release(request, 'session-needed');
      return never();
    }
    if ('u' in first) {
      if (first.u.outcome?.status === 'answered') {
        call.state.phase = { state: 'calling' };
        return answerToElicitResult(first.u.outcome.answer, { mode });
      }
      if (first.u.outcome?.status === 'released') call.release(first.u.outcome.request, 'hold-expired');
      else call.release(request, 'workflow-unreachable');
    } else {
      call.release(request, first.r);
    }
    // The call is released: leave the server's request unanswered; the session is being closed.
    return never();
  };

  return {
    handler,
    dispose() {
      disposed.abort();
      onDisposed.dispose();
      onCancelled.dispose();
      onShutdown.dispose();
    },
  };
}

/** A `-32042` URLElicitationRequired error goes back to the workflow as its URLs, each admitted: complete them, then call again. */
export function urlRequiredOutcome(input: CallMcpToolInput, round: UrlRequiredRound, flags: WorkerFlags): CallMcpToolUrlRequired {
  const where = `tool "${input.tool}" of server "${input.server}"`;
  const inputRequests: ElicitationRequests = {};
  for (const { key, params } of urlInputRequests(round)) inputRequests[key] = { method: 'elicitation/create', params: admittedOrFail(where, key, params) };
  if (Object.keys(inputRequests).length === 0) {
    const message = `${where} requires URL elicitation (-32042) but named no URL: ${round.message}`;
    throw ApplicationFailure.nonRetryable(message, FailureTypes.UnsupportedInputRequest);
  }
  return { status: 'input_required', form: 'url-error', inputRequests, ...flags };
}
