/**
 * The `callMcpTool` activity: lease a session of the server exclusively from the worker's pool, make one round
 * trip of `tools/call` (heartbeating on an interval, progress relayed), release the session. The round ends
 * complete, or with the outcome of a gate (src/gates/table.ts): the approval asked first (src/gates/approval/activity.ts),
 * the input one era asks for (`input_required`, `-32042`), a task, a login, or (legacy era) released while a person is
 * asked on the live session (the question gate, src/gates/question/activity.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureTypes, type Request } from '../contract/index.js';
import type { ElicitationHandler, Lease, RoundOutcome, ServerConfig } from '../mcp/index.js';
import { tracedToolCall } from '../telemetry/tool-call-tracing.js';
import { approvalGate } from '../gates/approval/activity.js';
import { heartbeatEvery, serverConfigOf, workerFeatures, type ActivityDeps } from './deps.js';
import { legacyElicitations, type CallState, type ElicitingCall } from '../gates/question/activity.js';
import { callLogin, loginLease, loginRequiredOutcome, oauthServer, type CallLogin } from './oauth.js';
import { callErrorOutcome, releasedOutcome, roundOutcome, type Release } from './outcome.js';
import { progressReporter, toProgress, type Progress } from './progress.js';
import type { CallMcpToolInput, CallMcpToolOutcome, ReleaseReason } from '../contract/activities.js';

/** A call's release, also the reason its `tools/call` is aborted with. */
class Released extends Error implements Release {
  constructor(
    readonly request: Request,
    readonly reason: ReleaseReason,
  ) {
    super(`released: ${reason}`);
  }
}

/** One attempt of a call: what it is, where, for whom, and the activity context it runs in. */
interface Attempt {
  deps: ActivityDeps;
  ctx: Context;
  input: CallMcpToolInput;
  server: ServerConfig;
  login: CallLogin | undefined;
  workflowId: string;
  runId: string | undefined;
  /**
   * The tool was refused in the 2026-07-28 era as one that asks the old way (or failed there before any result, from a
   * server that offers older versions): this attempt runs it once more, on a legacy-era session (docs/eras.md).
   */
  oldWay?: true;
}

/** A call to run once more in the legacy era, in the same attempt (callOnLease → leaseAndCall). */
const OLD_WAY = Symbol('old-way');

export function callMcpToolActivity(deps: ActivityDeps) {
  return async function callMcpTool(input: CallMcpToolInput): Promise<CallMcpToolOutcome> {
    const ctx = Context.current();
    const execution = ctx.info.workflowExecution;
    if (!execution)
      throw ApplicationFailure.nonRetryable(
        'callMcpTool must run as an activity of a workflow (it hands elicitations to that workflow)',
        FailureTypes.NoWorkflow,
      );
    const server = allowedServer(deps, input);
    // Inline (a local activity): a server behind OAuth may ask a person to sign in; the call runs as the activity.
    if (input.inline && oauthServer(server)) return { status: 'regular' };
    // A server behind OAuth: the call needs its login's access token (nothing is held while a person signs in).
    const oauth = oauthServer(server);
    let login: CallLogin | undefined;
    if (oauth) {
      const found = await callLogin(deps, ctx, oauth, input.principal);
      login = found.login;
      // An expired token goes to the login at once (a refresh needs no challenge). Without any token the call asks the
      // server once without one: its 401 names the scope and the resource metadata the sign-in must ask for.
      if (found.expired) return loginRequiredOutcome(deps, login, input.server, { reason: 'expired', generation: login.generation, challenge: {} });
    }
    return leaseAndCall({
      deps,
      ctx,
      input,
      server,
      login,
      workflowId: execution.workflowId,
      runId: execution.runId,
      ...(input.oldWay ? { oldWay: true } : {}),
    });
  };
}

/** The call's server, if the call may use it: known, enabled, and the tool in its allowlist. */
function allowedServer(deps: ActivityDeps, input: CallMcpToolInput): ServerConfig {
  const server = serverConfigOf(deps, input.server);
  if (server.tools && !server.tools.includes(input.tool)) {
    throw ApplicationFailure.nonRetryable(
      `tool "${input.tool}" of server "${input.server}" is not in its tools allowlist (${server.tools.join(', ')})`,
      FailureTypes.ToolNotAllowed,
    );
  }
  return server;
}

/**
 * What a call shows while it runs: its phase (shared with the legacy elicitation handler) and the last MCP progress
 * notification, in the heartbeat details and sent to the workflow (its `progress` query). Heartbeats only on the
 * interval: a short call costs no heartbeat RPC at all, and an elicitation sends none on its critical path (a heartbeat
 * there would contend with the `elicit` update for the workflow's lock on the server).
 */
function callActivity(a: Attempt) {
  const state: CallState = { phase: { state: 'leasing' }, traceContext: undefined };
  let progress: Progress | undefined;
  // A local activity (inline) has no heartbeat: its workflow task's own heartbeat keeps it alive.
  const beat = a.ctx.info.isLocal
    ? undefined
    : setInterval(() => a.ctx.heartbeat(progress ? { ...state.phase, progress } : state.phase), heartbeatEvery(a.ctx));
  const reporter = progressReporter(a.deps, a.ctx, a.workflowId, a.runId, a.input.callId);
  return {
    state,
    onProgress(p: Progress): void {
      progress = toProgress(p);
      reporter.report(progress);
    },
    stop(): void {
      clearInterval(beat);
      reporter.stop();
    },
  };
}

/** What a call's error turns into (./outcome.ts): the login it needs, a run in the legacy era, or its failure thrown. */
function afterError(a: Attempt, err: unknown, cancelled: AbortSignal | undefined): CallMcpToolOutcome | typeof OLD_WAY {
  const outcome = callErrorOutcome(err, {
    server: a.input.server,
    era: a.server.era,
    ...(cancelled ? { cancelled: { reason: cancelled.reason } } : {}),
    ...(a.login ? { generation: a.login.generation } : {}),
  });
  if (outcome.kind === 'login-required') return loginRequiredOutcome(a.deps, a.login!, a.input.server, outcome.needed);
  if (outcome.kind === 'legacy-era' && !a.oldWay) return OLD_WAY;
  throw outcome.failure;
}

/** Lease a session of the server exclusively from the worker's pool, check the tool is there, and make the call on it. */
async function leaseAndCall(a: Attempt): Promise<CallMcpToolOutcome> {
  const { deps, ctx, input } = a;
  const activity = callActivity(a);
  let lease: Lease;
  // A tool that asks the old way (remembered, or being tried) runs on a legacy-era session; the server's other tools
  // keep the era it negotiates.
  const legacy = a.oldWay === true || deps.pool.asksTheOldWay(input.server, input.tool);
  // Inline, a call on a legacy-era session could hold for a person (its question on the live session): nothing runs here.
  if (input.inline && legacy) {
    activity.stop();
    return { status: 'regular' };
  }
  try {
    lease = await deps.pool.lease(input.server, ctx.cancellationSignal, { ...loginLease(a.login), ...(legacy ? { era: 'legacy' as const } : {}) });
  } catch (err) {
    activity.stop();
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
    const outcome = afterError(a, err, undefined);
    if (outcome === OLD_WAY) throw new Error('unreachable: a lease is never refused as the old way');
    return outcome;
  }
  // A tool the server does not list fails at once, naming what it has (no MCP request, no retry).
  // (One left out for an invalid declaration fails in the call instead, saying why: ProtocolViolation.)
  const { session } = lease;
  if (input.inline && session.era !== 'modern') {
    activity.stop();
    await lease.release();
    return { status: 'regular' };
  }
  const listed = session.tools.some((t) => t.name === input.tool) || session.invalidTools.has(input.tool);
  if (Array.isArray(session.tools) && session.tools.length > 0 && !listed) {
    activity.stop();
    await lease.release();
    const names = session.tools.map((t) => t.name);
    throw ApplicationFailure.nonRetryable(
      `server "${input.server}" has no tool "${input.tool}"; its tools: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`,
      FailureTypes.UnknownTool,
    );
  }
  // A call a person must approve first ends here, before anything runs (the session goes back as it was).
  let gate: ReturnType<typeof approvalGate>;
  try {
    gate = approvalGate(
      a.server,
      input,
      session.tools.find((t) => t.name === input.tool),
      workerFeatures(deps),
    );
  } catch (err) {
    activity.stop();
    await lease.release();
    throw err;
  }
  if (gate) {
    activity.stop();
    await lease.release();
    return gate;
  }
  const outcome = await callOnLease(a, lease, activity);
  // Refused in the 2026-07-28 era as a tool that asks the old way: once more, now, in the legacy era (inline: as the
  // activity, which starts there).
  if (outcome === OLD_WAY) return input.inline ? { status: 'regular', oldWay: true } : leaseAndCall({ ...a, oldWay: true });
  return outcome;
}

/**
 * One round trip of `tools/call` on the leased session, then the session goes back: kept when its state is known (the
 * round ended), discarded when the call was released (legacy era: a person is asked on it) or failed.
 */
async function callOnLease(a: Attempt, lease: Lease, activity: ReturnType<typeof callActivity>): Promise<CallMcpToolOutcome | typeof OLD_WAY> {
  const { deps, ctx, input } = a;
  const { session } = lease;
  const callAbort = new AbortController();
  let releasedWith: Released | undefined;
  let onRelease: (r: Released) => void = () => undefined;
  const released = new Promise<Released>((resolve) => (onRelease = resolve));
  const call: ElicitingCall = {
    ctx,
    input,
    workflowId: a.workflowId,
    runId: a.runId,
    lease,
    callAbort,
    release(request: Request, reason: ReleaseReason) {
      if (releasedWith) return;
      releasedWith = new Released(request, reason);
      callAbort.abort(releasedWith);
      onRelease(releasedWith);
    },
    get released() {
      return releasedWith !== undefined;
    },
    state: activity.state,
  };
  const elicitations = legacyElicitations(deps, call);
  // Run in the legacy era after a refusal: the tool is remembered as one that asks the old way once it asks.
  const askedTheOldWay = () => {
    if (a.oldWay) deps.pool.rememberOldWay(input.server, input.tool);
  };
  // The question gate (src/gates/question/activity.ts) answers what the server asks while this call runs.
  const onElicit: ElicitationHandler = a.oldWay
    ? (params, signal) => {
        askedTheOldWay();
        return elicitations.handler(params, signal);
      }
    : elicitations.handler;
  activity.state.phase = { state: 'calling' };
  // Cancellation (workflow cancelled, timed out, worker shutdown past its grace time) reaches the MCP call.
  // While waiting for a human the elicitation handler decides (a shutdown releases the call instead).
  const onCancel = () => {
    if (activity.state.phase.state !== 'waiting') callAbort.abort(ctx.cancellationSignal.reason);
  };
  if (ctx.cancellationSignal.aborted) onCancel();
  else ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
  try {
    const round = await Promise.race([
      tracedToolCall(input.server, input.tool, (meta, spanContext) => {
        activity.state.traceContext = spanContext;
        // The span's traceparent rides every round's tools/call `_meta` (each round is its own attempt's span).
        const options = { timeoutMs: input.toolTimeoutMs, signal: callAbort.signal, meta, onProgress: (p: Progress) => activity.onProgress(p), onElicit };
        return session.callToolRound(input.tool, input.arguments, input.round ?? {}, options);
      }),
      released,
    ]);
    if (releasedWith) {
      void lease.release({ discard: true });
      return releasedOutcome(releasedWith, workerFeatures(deps));
    }
    // Nothing is held while the human thinks: the session goes back to the pool (its state is known).
    await lease.release();
    if ((round as RoundOutcome).kind === 'url_required') askedTheOldWay();
    return roundOutcome(input, round as RoundOutcome, workerFeatures(deps));
  } catch (err) {
    // A server that fails the call while one of its questions is open gave up waiting: the call is released (src/gates/question/activity.ts).
    if (!ctx.cancellationSignal.aborted) elicitations.failedWhileAsking(err);
    if (releasedWith) {
      void lease.release({ discard: true });
      return releasedOutcome(releasedWith, workerFeatures(deps));
    }
    // The session's state is unknown after a failed or aborted call: never reuse it.
    void lease.release({ discard: true });
    return afterError(a, err, ctx.cancellationSignal.aborted ? ctx.cancellationSignal : undefined);
  } finally {
    activity.stop();
    ctx.cancellationSignal.removeEventListener('abort', onCancel);
    elicitations.dispose();
  }
}
