/**
 * The legacy era (MCP ≤ 2025-11-25) in the activities plane. An `elicitation/create` on the live session is
 * handed to the activity's own workflow (the `durable-mcp.elicit` update, whose id is the deterministic request
 * id) while the call holds its session; the tool call heartbeats meanwhile. The call is released (session
 * closed, activity completed with the request) when the workflow says so (holdFor expired), when the server
 * gives up on its request (it cancels it, or fails the `tools/call` while it is open), when another call needs the
 * session, or when the worker shuts down. (A `-32042`
 * URLElicitationRequired error becomes the `form: "url-error"` outcome: ./outcome.ts.)
 */
import type { Context } from '@temporalio/activity';
import { ProtocolError } from '@modelcontextprotocol/client';
import { answerToElicitResult, deriveRequestId, elicitationToRequest, ELICIT_UPDATE, type Request } from '../../contract/index.js';
import type { ElicitationHandler, Lease } from '../../mcp/index.js';
import { elicitationSpan } from '../../telemetry/tool-call-tracing.js';
import { clientOf, workerFeatures, type ActivityDeps } from '../../activities/deps.js';
import { elicitSlots } from '../../activities/update-slots.js';
import { elicitationEnd } from '../../activities/outcome.js';
import type { CallMcpToolInput, ElicitInput, ElicitOutcome, ReleaseReason } from '../../contract/activities.js';

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

/** The servers a worker (its pool) logged as failing their calls while a question was open: each is logged once. */
const loggedGivingUp = new WeakMap<object, Set<string>>();

/** A wait for a person, and what may end it before the workflow answers (`cleanup` removes every listener it added). */
interface Wait {
  /** Resolves with why the wait was interrupted, if it is. */
  interrupted: Promise<ReleaseReason>;
  /** Set once `interrupted` resolved. */
  interruption: ReleaseReason | undefined;
  /** This call's session was promised to a call waiting for one. */
  promised: boolean;
  /** Aborted when the wait is interrupted or the call is over: a wait for an update slot stops. */
  stop: AbortSignal;
  cleanup(): void;
}

/**
 * The elicitations of one call's session: its handler answers from the answers the workflow already recorded, or asks
 * the workflow and waits for the answer or a release; `dispose` after the call.
 */
class LegacyElicitations {
  private ordinal = 0;
  /** When the call last started waiting for a person (performance.now()). */
  private waitingSince = 0;
  private readonly pressureListeners = new Set<() => void>();
  // One listener per shared signal for the whole call, fanned out to the elicitations waiting at that
  // moment: a listener per elicitation on the activity's or the worker's signal would pile up (a server
  // may elicit many times at once; Node warns past 10).
  private readonly onCancelled: ReturnType<typeof fanOut>;
  private readonly onShutdown: ReturnType<typeof fanOut>;
  /** The waits for a person still open: when each began (performance.now()), and how the server gives it up. */
  private readonly open = new Set<{ since: number; giveUp: () => void }>();
  /** Aborted when the call is over: elicitations still waiting for a slot stop waiting. */
  private readonly disposed = new AbortController();
  private readonly onDisposed: ReturnType<typeof fanOut>;

  constructor(
    private readonly deps: ActivityDeps,
    private readonly call: ElicitingCall,
  ) {
    const { lease } = call;
    // Another call waits for a session: give this one up only while it merely waits for a human, and has for the
    // grace (before it, the pool counts the waiter as unserved, and the grace's end offers the session).
    lease.onPressure(() => {
      if (call.state.phase.state !== 'waiting' || call.released || this.pressureListeners.size === 0) return false;
      if (performance.now() - this.waitingSince < lease.handoverGraceMs) return false;
      for (const l of this.pressureListeners) l();
      return true;
    });
    this.onCancelled = fanOut(call.ctx.cancellationSignal);
    this.onShutdown = fanOut(deps.shutdown);
    this.onDisposed = fanOut(this.disposed.signal);
  }

  readonly handler: ElicitationHandler = async (params, serverSignal) => {
    const { call } = this;
    const id = deriveRequestId(call.input.callId, ++this.ordinal, params);
    const mode = params.mode === 'url' ? 'url' : 'form';
    const recorded = call.input.recorded?.[id];
    const request = elicitationToRequest(params, { id });
    const span = elicitationSpan(call.state.traceContext, id, request.kind);
    if (recorded) {
      span.end('recorded');
      return answerToElicitResult(recorded, { mode });
    }
    if (call.state.phase.state !== 'waiting') this.waitingSince = performance.now();
    call.state.phase = { state: 'waiting', requestId: id };

    const wait = this.waitFor(request, serverSignal);
    // A slot of this run first (./update-slots.ts): past the limit on updates in flight, Temporal drops the run's state.
    const free = await elicitSlots.acquire(call.workflowId, call.runId, wait.stop);
    if (!free || wait.interruption || call.released) {
      free?.();
      wait.cleanup();
      span.end(wait.interruption ? `released: ${wait.interruption}` : 'released');
      // Interrupted, or released meanwhile by another of its requests: this one never reached the workflow, and a
      // re-run asks it again.
      if (wait.interruption) call.release(request, wait.interruption);
      return never();
    }
    const ended = await Promise.race([this.askWorkflow(id, request, free).then((update) => ({ update })), wait.interrupted.then((r) => ({ interrupted: r }))]);
    wait.cleanup();
    span.end('update' in ended ? (ended.update.outcome?.status ?? 'workflow-unreachable') : `released: ${ended.interrupted}`);
    const end = elicitationEnd(request, ended, wait.promised);
    if ('answer' in end) {
      call.state.phase = { state: 'calling' };
      return answerToElicitResult(end.answer, { mode });
    }
    // The call is released: leave the server's request unanswered; the session is being closed.
    call.release(end.release.request, end.release.reason);
    return never();
  };

  /**
   * A wait for a person, interrupted when the server gives up on its request, when the activity is cancelled (a
   * shutdown releases the call, any other cancellation aborts the `tools/call`), when the worker shuts down, or when
   * another call needs the session (past the grace, if no other holder promised one).
   */
  private waitFor(request: Request, serverSignal: AbortSignal): Wait {
    const { call } = this;
    const { ctx, lease } = call;
    // Every listener added for this wait is removed after it (a long-running worker must not leak them).
    const cleanups: Array<() => void> = [];
    const stop = new AbortController();
    const wait: Wait = {
      interrupted: undefined as never,
      interruption: undefined,
      promised: false,
      stop: stop.signal,
      cleanup: () => cleanups.forEach((c) => c()),
    };
    wait.interrupted = new Promise<ReleaseReason>((resolve) => {
      const listen = (signal: AbortSignal | undefined, fn: () => void) => {
        if (!signal) return;
        if (signal.aborted) return fn();
        signal.addEventListener('abort', fn, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', fn));
      };
      // Released at once, synchronously: the server's result for the tool call (typically an error about the
      // unanswered elicitation) may be in the same read as its cancellation, and must not complete the call.
      const giveUp = () => {
        call.release(request, 'server-gave-up');
        resolve('server-gave-up');
      };
      listen(serverSignal, giveUp);
      // A server may also give up without cancelling: it fails the tools/call while the question is open (failedWhileAsking).
      const open = { since: performance.now(), giveUp };
      this.open.add(open);
      cleanups.push(() => this.open.delete(open));
      cleanups.push(
        this.onCancelled.add(() => {
          const reason = ctx.cancellationSignal.reason;
          const shutdown = reason === 'WORKER_SHUTDOWN' || (reason instanceof Error && reason.message === 'WORKER_SHUTDOWN');
          if (shutdown) resolve('worker-shutdown');
          else call.callAbort.abort(reason);
        }),
      );
      cleanups.push(this.onShutdown.add(() => resolve('worker-shutdown')));
      const onPressure = () => {
        wait.promised = true;
        resolve('session-needed');
      };
      this.pressureListeners.add(onPressure);
      cleanups.push(() => this.pressureListeners.delete(onPressure));
      // After the grace, if a caller waits for a session of this server and no other holder promised one: give this one up.
      const grace = setTimeout(
        () => {
          if (lease.offer()) onPressure();
        },
        Math.max(0, lease.handoverGraceMs - (performance.now() - this.waitingSince)),
      );
      cleanups.push(() => clearTimeout(grace));
    });
    void wait.interrupted.then((r) => {
      wait.interruption = r;
      stop.abort();
    });
    cleanups.push(this.onDisposed.add(() => stop.abort()));
    return wait;
  }

  /** The `elicit` update to the call's workflow (its id: the request id), freeing the update slot when it ends. */
  private askWorkflow(id: string, request: Request, free: () => void): Promise<{ outcome?: ElicitOutcome; error?: unknown }> {
    const { deps, call } = this;
    return clientOf(deps, call.ctx)
      .workflow.getHandle(call.workflowId, call.runId)
      .executeUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE, { args: [{ callId: call.input.callId, request, ...workerFeatures(deps) }], updateId: id })
      .then(
        (outcome) => ({ outcome }),
        (error) => ({ error }),
      )
      .finally(free);
  }

  /**
   * The `tools/call` failed with `err`. A JSON-RPC error from the server while one of the call's questions is open is
   * the server giving up on it without cancelling it (the Java SDK fails a server-to-client request after 10 s, then
   * the call): as with `notifications/cancelled`, the call is released with the request (no attempt spent), and re-run
   * from the record once the person answers. The first time a server of this worker does so it is logged, with how
   * long it waited. `true` when the call was released.
   */
  failedWhileAsking(err: unknown): boolean {
    if (!(err instanceof ProtocolError) || this.open.size === 0 || this.call.released) return false;
    const waited = performance.now() - Math.min(...[...this.open].map((o) => o.since));
    for (const o of [...this.open]) o.giveUp();
    const { ctx, input } = this.call;
    const logged = loggedGivingUp.get(this.deps.pool) ?? new Set<string>();
    loggedGivingUp.set(this.deps.pool, logged);
    if (!logged.has(input.server)) {
      logged.add(input.server);
      ctx.log.warn(
        `server "${input.server}" gives up on its own question after about ${(waited / 1000).toFixed(1)} s: it failed tool "${input.tool}" ` +
          `while the person was being asked (${err.message.slice(0, 200)}). The call is released and re-run when the person answers; ` +
          `raise that server's timeout for its requests to the client to keep its calls waiting (logged once per server)`,
        { server: input.server, tool: input.tool, waitedMs: Math.round(waited) },
      );
    }
    return true;
  }

  dispose(): void {
    this.disposed.abort();
    this.onDisposed.dispose();
    this.onCancelled.dispose();
    this.onShutdown.dispose();
  }
}

/**
 * The elicitation handler of one call's session, what an error of the call means to its open questions
 * (`failedWhileAsking`: the call released when the server gave one up), and its disposal (after the call).
 */
export function legacyElicitations(
  deps: ActivityDeps,
  call: ElicitingCall,
): { handler: ElicitationHandler; failedWhileAsking(err: unknown): boolean; dispose(): void } {
  const elicitations = new LegacyElicitations(deps, call);
  return { handler: elicitations.handler, failedWhileAsking: (err) => elicitations.failedWhileAsking(err), dispose: () => elicitations.dispose() };
}
