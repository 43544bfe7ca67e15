/**
 * Activities: `createActivities(deps)` with `callMcpTool` and `listMcpTools`.
 * A tool call leases an MCP session exclusively from the worker's pool. An elicitation is handed to
 * the activity's own workflow (an update whose id is the deterministic request id), and the activity
 * heartbeats while it waits. The call is released — session closed, activity completed with the
 * request — when the workflow says so (holdFor), when the MCP server gives up on its request, when
 * another call needs the session, or when the worker shuts down.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  answerToElicitResult,
  deriveRequestId,
  elicitationToRequest,
  jsonByteLength,
  type Answer,
  type ElicitParams,
  type ElicitResult,
  type Request,
  type ToolResult,
} from '../contract/index.js';
import { McpConfigError, McpConnectError, MissingEnvVarError, PoolClosedError, ServerDisabledError, SessionPool, UnknownServerError, type McpToolInfo } from '../mcp/index.js';
import { ELICIT_UPDATE } from '../contract/index.js';
import type { ElicitInput, ElicitOutcome } from '../workflows/messages.js';
import { measuredToolCall } from './metrics.js';
import { elicitationSpan, tracedToolCall } from './tracing.js';

/** Largest tool result an activity returns: Temporal rejects payloads over 2 MB. */
export const MAX_RESULT_BYTES = 1024 * 1024;

export interface ActivityDeps {
  pool: SessionPool;
  /** The Temporal client the activity uses to reach its workflow (default: the one of the activity's own context). */
  client?: () => Client;
  /** Aborted when the worker starts to shut down: waiting calls are released at once, not after the grace time. */
  shutdown?: AbortSignal;
  /** Whether the namespace has the DurableMcpAwaitingInput search attribute (the workflow then keeps it current). */
  searchAttribute?: boolean;
}

export interface CallMcpToolInput {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
  /** The tool call's stable id, assigned by the workflow. */
  callId: string;
  /** Answers the workflow already recorded for this call, by request id. */
  recorded?: Record<string, Answer>;
  /** Timeout of the `tools/call` request in ms. */
  toolTimeoutMs: number;
}

export type ReleaseReason = 'hold-expired' | 'server-gave-up' | 'session-needed' | 'worker-shutdown' | 'workflow-unreachable';

export type CallMcpToolOutcome =
  | { status: 'completed'; result: ToolResult }
  | { status: 'released'; request: Request; reason: ReleaseReason; searchAttribute?: boolean };

export interface ListMcpToolsInput {
  server: string;
}

class Released extends Error {
  constructor(
    readonly request: Request,
    readonly reason: ReleaseReason,
  ) {
    super(`released: ${reason}`);
  }
}

function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}

export function createActivities(deps: ActivityDeps) {
  // The client of *this* activity's context: an elicitation arrives in a callback of the session's stdio
  // stream, whose async context is that of the activity that spawned the server (getClient() there would
  // answer for another, possibly finished, activity).
  const clientOf = (ctx: Context): Client => (deps.client ? deps.client() : ctx.client);

  function failure(err: unknown, server: string): never {
    if (err instanceof UnknownServerError || err instanceof ServerDisabledError) {
      throw ApplicationFailure.nonRetryable(err.message, err.name);
    }
    // An unset ${VAR} is this worker's environment, not the config: another worker (or this one, fixed) may have it.
    if (err instanceof MissingEnvVarError) throw ApplicationFailure.retryable(err.message, err.name);
    if (err instanceof McpConfigError) throw ApplicationFailure.nonRetryable(err.message, err.name);
    if (err instanceof McpConnectError) throw err.permanent ? ApplicationFailure.nonRetryable(err.message, err.name) : ApplicationFailure.retryable(err.message, err.name);
    // The server says the request itself is wrong (unknown tool, invalid arguments): retrying cannot help.
    if (err instanceof McpError && (err.code === ErrorCode.MethodNotFound || err.code === ErrorCode.InvalidParams)) {
      throw ApplicationFailure.nonRetryable(`server "${server}": ${err.message}`, 'McpInvalidRequest');
    }
    if (err instanceof PoolClosedError) throw ApplicationFailure.retryable(err.message, err.name);
    if (err instanceof ApplicationFailure || err instanceof CancelledFailure) throw err;
    throw ApplicationFailure.retryable(`server "${server}": ${(err as Error)?.message ?? String(err)}`, 'McpToolCallError');
  }

  async function callMcpTool(input: CallMcpToolInput): Promise<CallMcpToolOutcome> {
    const ctx = Context.current();
    const execution = ctx.info.workflowExecution;
    if (!execution) throw ApplicationFailure.nonRetryable('callMcpTool must run as an activity of a workflow (it hands elicitations to that workflow)', 'NoWorkflow');
    const { workflowId, runId } = execution;
    let server;
    try {
      server = deps.pool.serverConfig(input.server);
    } catch (err) {
      failure(err, input.server);
    }
    if (server.tools && !server.tools.includes(input.tool)) {
      throw ApplicationFailure.nonRetryable(`tool "${input.tool}" of server "${input.server}" is not in its tools allowlist (${server.tools.join(', ')})`, 'ToolNotAllowed');
    }

    let phase: { state: 'leasing' | 'calling' } | { state: 'waiting'; requestId: string } = { state: 'leasing' };
    const heartbeatEvery = Math.max(200, Math.min(5_000, (ctx.info.heartbeatTimeoutMs ?? 30_000) / 3));
    // Heartbeats only on the interval: a short call costs no heartbeat RPC at all, and an elicitation sends
    // none on its critical path (a heartbeat there would contend with the `elicit` update for the workflow's
    // lock on the server). The details say what the call does (leasing, calling, waiting for which request).
    const beat = setInterval(() => ctx.heartbeat(phase), heartbeatEvery);

    let lease;
    try {
      lease = await deps.pool.lease(input.server, ctx.cancellationSignal);
    } catch (err) {
      clearInterval(beat);
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
      failure(err, input.server);
    }

    const session = lease.session;
    const callAbort = new AbortController();
    let release: ((r: Released) => void) | undefined;
    const released = new Promise<Released>((resolve) => {
      release = resolve;
    });
    let releasedWith: Released | undefined;
    const doRelease = (request: Request, reason: ReleaseReason) => {
      if (releasedWith) return;
      releasedWith = new Released(request, reason);
      callAbort.abort(releasedWith);
      release!(releasedWith);
    };
    let ordinal = 0;
    let traceContext: Parameters<typeof elicitationSpan>[0];
    // Another call waits for a session: give this one up only while it merely waits for a human.
    const pressureListeners = new Set<() => void>();
    lease.onPressure(() => {
      if (phase.state !== 'waiting' || releasedWith || pressureListeners.size === 0) return false;
      for (const l of pressureListeners) l();
      return true;
    });

    session.elicitationHandler = async (params: ElicitParams, serverSignal: AbortSignal): Promise<ElicitResult> => {
      const id = deriveRequestId(input.callId, ++ordinal, params);
      const mode = params.mode === 'url' ? 'url' : 'form';
      const recorded = input.recorded?.[id];
      const request = elicitationToRequest(params, { id });
      const span = elicitationSpan(traceContext, id, request.kind);
      if (recorded) {
        span.end('recorded');
        return answerToElicitResult(recorded, { mode });
      }
      phase = { state: 'waiting', requestId: id };

      const handle = clientOf(ctx).workflow.getHandle(workflowId, runId);
      const update: Promise<{ outcome?: ElicitOutcome; error?: unknown }> = handle
        .executeUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE, { args: [{ callId: input.callId, request, ...(deps.searchAttribute ? { searchAttribute: true } : {}) }], updateId: id })
        .then(
          (outcome) => ({ outcome }),
          (error) => ({ error }),
        );
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
          doRelease(request, 'server-gave-up');
          resolve('server-gave-up');
        });
        listen(ctx.cancellationSignal, () => {
          const reason = ctx.cancellationSignal.reason;
          const shutdown = reason === 'WORKER_SHUTDOWN' || (reason instanceof Error && reason.message === 'WORKER_SHUTDOWN');
          if (shutdown) resolve('worker-shutdown');
          else callAbort.abort(reason);
        });
        listen(deps.shutdown, () => resolve('worker-shutdown'));
        const onPressure = () => {
          promised = true;
          resolve('session-needed');
        };
        pressureListeners.add(onPressure);
        cleanups.push(() => pressureListeners.delete(onPressure));
        // A caller already waits for a session of this server and no other holder promised one: give this one up.
        if (lease.offer()) onPressure();
      });
      const first = await Promise.race([update.then((u) => ({ u })), interrupted.then((r) => ({ r }))]);
      for (const c of cleanups) c();
      span.end('u' in first ? (first.u.outcome?.status ?? 'workflow-unreachable') : `released: ${first.r}`);
      // This session was promised to a waiting call: keep the promise (the answer is recorded; a re-run uses it).
      if (promised && 'u' in first && first.u.outcome?.status === 'answered') {
        doRelease(request, 'session-needed');
        return never();
      }
      if ('u' in first) {
        if (first.u.outcome?.status === 'answered') {
          phase = { state: 'calling' };
          return answerToElicitResult(first.u.outcome.answer, { mode });
        }
        if (first.u.outcome?.status === 'released') doRelease(first.u.outcome.request, 'hold-expired');
        else doRelease(request, 'workflow-unreachable');
      } else {
        doRelease(request, first.r);
      }
      // The call is released: leave the server's request unanswered; the session is being closed.
      return never();
    };

    phase = { state: 'calling' };
    // Cancellation (workflow cancelled, timed out, worker shutdown past its grace time) reaches the MCP call.
    // While waiting for a human the elicitation handler decides (a shutdown releases the call instead).
    const onCancel = () => {
      if (phase.state !== 'waiting') callAbort.abort(ctx.cancellationSignal.reason);
    };
    if (ctx.cancellationSignal.aborted) onCancel();
    else ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
    try {
      const result = await Promise.race([
        tracedToolCall(input.server, input.tool, (meta, spanContext) => {
          traceContext = spanContext;
          return session.callTool(input.tool, input.arguments, { timeoutMs: input.toolTimeoutMs, signal: callAbort.signal, meta });
        }),
        released,
      ]);
      if (result instanceof Released) {
        void lease.release({ discard: true });
        return { status: 'released', request: result.request, reason: result.reason, ...(deps.searchAttribute ? { searchAttribute: true } : {}) };
      }
      if (releasedWith) {
        void lease.release({ discard: true });
        return { status: 'released', request: releasedWith.request, reason: releasedWith.reason, ...(deps.searchAttribute ? { searchAttribute: true } : {}) };
      }
      await lease.release();
      const size = jsonByteLength(result);
      if (size > MAX_RESULT_BYTES) {
        throw ApplicationFailure.nonRetryable(`tool "${input.tool}" of server "${input.server}" returned ${size} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`, 'ResultTooLarge');
      }
      return { status: 'completed', result };
    } catch (err) {
      if (releasedWith) {
        void lease.release({ discard: true });
        return { status: 'released', request: releasedWith.request, reason: releasedWith.reason, ...(deps.searchAttribute ? { searchAttribute: true } : {}) };
      }
      // The session's state is unknown after a failed or aborted call: never reuse it.
      void lease.release({ discard: true });
      if (ctx.cancellationSignal.aborted) {
        const reason = ctx.cancellationSignal.reason;
        throw reason instanceof CancelledFailure ? reason : new CancelledFailure(String(reason ?? 'cancelled'));
      }
      failure(err, input.server);
    } finally {
      clearInterval(beat);
      ctx.cancellationSignal.removeEventListener('abort', onCancel);
      session.elicitationHandler = undefined;
    }
  }

  async function listMcpTools(input: ListMcpToolsInput): Promise<McpToolInfo[]> {
    let lease;
    try {
      lease = await deps.pool.lease(input.server, Context.current().cancellationSignal);
    } catch (err) {
      failure(err, input.server);
    }
    const tools = lease.session.tools;
    await lease.release();
    return tools;
  }

  return { callMcpTool: measuredToolCall(callMcpTool), listMcpTools };
}

export type Activities = ReturnType<typeof createActivities>;
