/**
 * The `callMcpTool` activity: lease a session of the server exclusively from the worker's pool, make one round
 * trip of `tools/call` (heartbeating on an interval, progress relayed), release the session. The round ends
 * complete, or with the input one era asks for (./modern.ts: `input_required`; ./legacy.ts: `-32042`), or
 * (legacy era) released while a person is asked on the live session (./legacy.ts).
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { FailureTypes, jsonByteLength, type Request } from '../contract/index.js';
import { BackChannelRefusedError, loginRequiredOf } from '../mcp/index.js';
import { tracedToolCall } from '../telemetry/tool-call-tracing.js';
import { heartbeatEvery, workerFlags, type ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import { legacyElicitations, urlRequiredOutcome, type CallState, type ElicitingCall } from './legacy.js';
import { inputRequiredOutcome } from './modern.js';
import { callLogin, loginLease, loginRequiredOutcome, oauthServer, type CallLogin } from './oauth.js';
import { progressReporter, toProgress, type Progress } from './progress.js';
import { MAX_RESULT_BYTES, type CallMcpToolInput, type CallMcpToolOutcome, type ReleaseReason } from './types.js';

class Released extends Error {
  constructor(
    readonly request: Request,
    readonly reason: ReleaseReason,
  ) {
    super(`released: ${reason}`);
  }
}

export function callMcpToolActivity(deps: ActivityDeps) {
  return async function callMcpTool(input: CallMcpToolInput): Promise<CallMcpToolOutcome> {
    const ctx = Context.current();
    const execution = ctx.info.workflowExecution;
    if (!execution)
      throw ApplicationFailure.nonRetryable(
        'callMcpTool must run as an activity of a workflow (it hands elicitations to that workflow)',
        FailureTypes.NoWorkflow,
      );
    const { workflowId, runId } = execution;
    let server;
    try {
      server = deps.pool.serverConfig(input.server);
    } catch (err) {
      failure(err, input.server);
    }
    if (server.tools && !server.tools.includes(input.tool)) {
      throw ApplicationFailure.nonRetryable(
        `tool "${input.tool}" of server "${input.server}" is not in its tools allowlist (${server.tools.join(', ')})`,
        FailureTypes.ToolNotAllowed,
      );
    }

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
    const leaseOptions = loginLease(login);

    // The call's phase, shared with the legacy elicitation handler (it waits for a human while the call holds on).
    const state: CallState = { phase: { state: 'leasing' }, traceContext: undefined };
    // The last MCP progress notification: in the heartbeat details, and sent to the workflow (its `progress` query).
    let progress: Progress | undefined;
    // Heartbeats only on the interval: a short call costs no heartbeat RPC at all, and an elicitation sends
    // none on its critical path (a heartbeat there would contend with the `elicit` update for the workflow's
    // lock on the server). The details say what the call does (leasing, calling, waiting for which request).
    const beat = setInterval(() => ctx.heartbeat(progress ? { ...state.phase, progress } : state.phase), heartbeatEvery(ctx));
    const reporter = progressReporter(deps, ctx, workflowId, runId, input.callId);

    let lease;
    try {
      lease = await deps.pool.lease(input.server, ctx.cancellationSignal, leaseOptions);
    } catch (err) {
      clearInterval(beat);
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
      const needed = login && loginRequiredOf(err, input.server, login.generation);
      if (needed) return loginRequiredOutcome(deps, login!, input.server, needed);
      failure(err, input.server);
    }

    const session = lease.session;
    // A tool the server does not list fails at once, naming what it has (no MCP request, no retry).
    // (One left out for an invalid declaration fails in the call instead, saying why: ProtocolViolation.)
    const listed = session.tools.some((t) => t.name === input.tool) || session.invalidTools.has(input.tool);
    if (Array.isArray(session.tools) && session.tools.length > 0 && !listed) {
      clearInterval(beat);
      await lease.release();
      const names = session.tools.map((t) => t.name);
      throw ApplicationFailure.nonRetryable(
        `server "${input.server}" has no tool "${input.tool}"; its tools: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`,
        FailureTypes.UnknownTool,
      );
    }
    const callAbort = new AbortController();
    let release: ((r: Released) => void) | undefined;
    const released = new Promise<Released>((resolve) => {
      release = resolve;
    });
    let releasedWith: Released | undefined;
    const call: ElicitingCall = {
      ctx,
      input,
      workflowId,
      runId,
      lease,
      callAbort,
      release(request: Request, reason: ReleaseReason) {
        if (releasedWith) return;
        releasedWith = new Released(request, reason);
        callAbort.abort(releasedWith);
        release!(releasedWith);
      },
      get released() {
        return releasedWith !== undefined;
      },
      state,
    };
    const elicitations = legacyElicitations(deps, call);
    session.elicitationHandler = elicitations.handler;

    state.phase = { state: 'calling' };
    // Cancellation (workflow cancelled, timed out, worker shutdown past its grace time) reaches the MCP call.
    // While waiting for a human the elicitation handler decides (a shutdown releases the call instead).
    const onCancel = () => {
      if (state.phase.state !== 'waiting') callAbort.abort(ctx.cancellationSignal.reason);
    };
    if (ctx.cancellationSignal.aborted) onCancel();
    else ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
    try {
      const round = await Promise.race([
        tracedToolCall(input.server, input.tool, (meta, spanContext) => {
          state.traceContext = spanContext;
          // The span's traceparent rides every round's tools/call `_meta` (each round is its own attempt's span).
          return session.callToolRound(input.tool, input.arguments, input.round ?? {}, {
            timeoutMs: input.toolTimeoutMs,
            signal: callAbort.signal,
            meta,
            onProgress: (p) => {
              progress = toProgress(p);
              reporter.report(progress);
            },
          });
        }),
        released,
      ]);
      if (!(round instanceof Released) && !releasedWith && round.kind !== 'complete') {
        // Nothing is held while the human thinks: the session goes back to the pool (its state is known).
        await lease.release();
        return round.kind === 'url_required' ? urlRequiredOutcome(input, round, workerFlags(deps)) : inputRequiredOutcome(input, round, workerFlags(deps));
      }
      const result = round instanceof Released ? round : round.kind === 'complete' ? round.result : (undefined as never);
      if (result instanceof Released) {
        void lease.release({ discard: true });
        return { status: 'released', request: result.request, reason: result.reason, ...workerFlags(deps) };
      }
      if (releasedWith) {
        void lease.release({ discard: true });
        return { status: 'released', request: releasedWith.request, reason: releasedWith.reason, ...workerFlags(deps) };
      }
      await lease.release();
      const size = jsonByteLength(result);
      if (size > MAX_RESULT_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `tool "${input.tool}" of server "${input.server}" returned ${size} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`,
          FailureTypes.ResultTooLarge,
        );
      }
      return { status: 'completed', result };
    } catch (err) {
      if (releasedWith) {
        void lease.release({ discard: true });
        return { status: 'released', request: releasedWith.request, reason: releasedWith.reason, ...workerFlags(deps) };
      }
      // The session's state is unknown after a failed or aborted call: never reuse it.
      void lease.release({ discard: true });
      if (ctx.cancellationSignal.aborted) {
        const reason = ctx.cancellationSignal.reason;
        throw reason instanceof CancelledFailure ? reason : new CancelledFailure(String(reason ?? 'cancelled'));
      }
      const needed = login && loginRequiredOf(err, input.server, login.generation);
      if (needed) return loginRequiredOutcome(deps, login!, input.server, needed);
      // DESIGN §6b: in `era: "auto"`, a tool that asked the old way (refused in the 2026-07-28 era, before any person
      // was asked) runs again at once in the legacy era, which the worker now speaks to this server.
      if (err instanceof BackChannelRefusedError && err.era === 'modern' && server.era === 'auto') {
        deps.pool.useLegacyEra(input.server);
        throw ApplicationFailure.create({
          message:
            `${err.message}; the tool asks the old way (elicitation/create): running it again in the legacy era,` +
            ` which this worker now uses for server "${input.server}"`,
          type: FailureTypes.ToolCallFailed,
          nextRetryDelay: 1,
        });
      }
      failure(err, input.server);
    } finally {
      clearInterval(beat);
      reporter.stop();
      ctx.cancellationSignal.removeEventListener('abort', onCancel);
      elicitations.dispose();
      session.elicitationHandler = undefined;
    }
  };
}
