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
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import {
  admitElicitation,
  answerToElicitResult,
  deriveRequestId,
  elicitationToRequest,
  jsonByteLength,
  readInputRequests,
  type Answer,
  type ElicitParams,
  type ElicitResult,
  type Request,
  type ToolResult,
} from '../contract/index.js';
import { McpConfigError, McpConnectError, MissingEnvVarError, expandEnv, type NotifyConfig, PoolClosedError, ServerDisabledError, SessionPool, UnknownServerError, type McpToolInfo, type RoundOutcome } from '../mcp/index.js';
import { ELICIT_UPDATE, FailureTypes, PROGRESS_SIGNAL } from '../contract/index.js';
import type { ElicitInput, ElicitOutcome, NotifyPendingInput } from '../workflows/messages.js';
import { measuredToolCall } from '../telemetry/tool-call-metrics.js';
import { elicitationSpan, tracedToolCall } from '../telemetry/tool-call-tracing.js';

/** Largest tool result an activity returns: Temporal rejects payloads over 2 MB. */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** Progress reaches the workflow at most this often (each report is a signal: an event in its history). */
export const PROGRESS_EVERY_MS = 1000;

export interface ActivityDeps {
  pool: SessionPool;
  /** The Temporal client the activity uses to reach its workflow (default: the one of the activity's own context). */
  client?: () => Client;
  /** Aborted when the worker starts to shut down: waiting calls are released at once, not after the grace time. */
  shutdown?: AbortSignal;
  /** Whether the namespace has the DurableMcpAwaitingInput search attribute (the workflow then keeps it current). */
  searchAttribute?: boolean;
  /** The webhook told of new pending requests (the `notify` key of the worker's config). */
  notify?: NotifyConfig;
}

/** Longest wait for the webhook's answer, per attempt. */
export const NOTIFY_TIMEOUT_MS = 10_000;

/** Slack's mrkdwn: &, < and > are escaped, so untrusted text cannot make links or mentions. */
const slackText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The body a webhook receives for one new pending request. */
export function notificationBody(input: NotifyPendingInput, notify: NotifyConfig): Record<string, unknown> {
  const inboxUrl = notify.inboxUrl;
  if (notify.format === 'slack') {
    const { request, context } = input;
    const where = `${context.server}/${context.tool}${context.step !== undefined ? ` (step ${context.step})` : ''}`;
    const lines = [
      `*durable-mcp: input requested* by ${slackText(where)} in workflow \`${slackText(input.workflowId)}\``,
      `> ${slackText(request.prompt)}`,
      ...(request.url ? [`link: \`${slackText(request.url)}\``] : []),
      ...(inboxUrl ? [`answer it in the inbox: ${slackText(inboxUrl)}`] : [`answer it: durable-mcp pending ${slackText(input.workflowId)}`]),
    ];
    return { text: lines.join('\n') };
  }
  return { type: 'durable-mcp.request.pending', workflowId: input.workflowId, request: input.request, context: input.context, ...(inboxUrl ? { inboxUrl } : {}) };
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
  /**
   * Modern era (MRTR): the previous round's answers (key → ElicitResult) and its `requestState`, echoed as
   * the server sent it. Absent on a call's first round.
   */
  round?: { inputResponses?: Record<string, unknown>; requestState?: string };
}

/** Largest `requestState` a round may carry (it lives in workflow history): past it the call fails. */
export const MAX_REQUEST_STATE_BYTES = 64 * 1024;

export type ReleaseReason = 'hold-expired' | 'server-gave-up' | 'session-needed' | 'worker-shutdown' | 'workflow-unreachable';

export type CallMcpToolOutcome =
  | { status: 'completed'; result: ToolResult }
  | { status: 'released'; request: Request; reason: ReleaseReason; searchAttribute?: boolean; notify?: boolean }
  /**
   * The server needs input before the call can finish, and nothing is held meanwhile: a modern-era
   * `input_required` round (`form: "mrtr"`: answer, then send the next round with `requestState`), or a
   * legacy `-32042` URLElicitationRequiredError (`form: "url-error"`: complete the URLs, then call again).
   * `inputRequests` are only elicitations (key → `{ method: "elicitation/create", params }`, params raw).
   */
  | { status: 'input_required'; form: 'mrtr' | 'url-error'; inputRequests: Record<string, { method: 'elicitation/create'; params: ElicitParams }>; requestState?: string; searchAttribute?: boolean; notify?: boolean };

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

export function createActivities(deps: ActivityDeps) {
  // The client of *this* activity's context: an elicitation arrives in a callback of the session's stdio
  // stream, whose async context is that of the activity that spawned the server (getClient() there would
  // answer for another, possibly finished, activity).
  const clientOf = (ctx: Context): Client => (deps.client ? deps.client() : ctx.client);
  /** What the workflow learns of this worker with a call's outcome: the search attribute is registered; a webhook is configured. */
  const flags = () => ({ ...(deps.searchAttribute ? { searchAttribute: true } : {}), ...(deps.notify ? { notify: true } : {}) });

  // Every failure carries a type from the one documented list (src/contract/failures.ts).
  function failure(err: unknown, server: string): never {
    if (err instanceof UnknownServerError || err instanceof ServerDisabledError) {
      throw ApplicationFailure.nonRetryable(err.message, FailureTypes.UnknownServer);
    }
    // An unset ${VAR} is this worker's environment, not the config: another worker (or this one, fixed) may have it.
    if (err instanceof MissingEnvVarError) throw ApplicationFailure.retryable(err.message, FailureTypes.McpServerUnavailable);
    if (err instanceof McpConfigError) throw ApplicationFailure.nonRetryable(err.message, FailureTypes.McpConfigInvalid);
    if (err instanceof McpConnectError) {
      throw err.permanent ? ApplicationFailure.nonRetryable(err.message, FailureTypes.McpServerUnavailable) : ApplicationFailure.retryable(err.message, FailureTypes.McpServerUnavailable);
    }
    // The server says the request itself is wrong (unknown tool, invalid arguments): retrying cannot help.
    if (err instanceof ProtocolError && err.code === ProtocolErrorCode.MethodNotFound) throw ApplicationFailure.nonRetryable(`server "${server}": ${err.message}`, FailureTypes.UnknownTool);
    if (err instanceof ProtocolError && err.code === ProtocolErrorCode.InvalidParams) throw ApplicationFailure.nonRetryable(`server "${server}": ${err.message}`, FailureTypes.InvalidArguments);
    if (err instanceof PoolClosedError) throw ApplicationFailure.retryable(err.message, FailureTypes.WorkerShuttingDown);
    if (err instanceof ApplicationFailure || err instanceof CancelledFailure) throw err;
    throw ApplicationFailure.retryable(`server "${server}": ${(err as Error)?.message ?? String(err)}`, FailureTypes.ToolCallFailed);
  }

  async function callMcpTool(input: CallMcpToolInput): Promise<CallMcpToolOutcome> {
    const ctx = Context.current();
    const execution = ctx.info.workflowExecution;
    if (!execution) throw ApplicationFailure.nonRetryable('callMcpTool must run as an activity of a workflow (it hands elicitations to that workflow)', FailureTypes.NoWorkflow);
    const { workflowId, runId } = execution;
    let server;
    try {
      server = deps.pool.serverConfig(input.server);
    } catch (err) {
      failure(err, input.server);
    }
    if (server.tools && !server.tools.includes(input.tool)) {
      throw ApplicationFailure.nonRetryable(`tool "${input.tool}" of server "${input.server}" is not in its tools allowlist (${server.tools.join(', ')})`, FailureTypes.ToolNotAllowed);
    }

    let phase: { state: 'leasing' | 'calling' } | { state: 'waiting'; requestId: string } = { state: 'leasing' };
    // The last MCP progress notification: in the heartbeat details, and sent to the workflow (its `progress` query).
    let progress: { progress: number; total?: number; message?: string } | undefined;
    const heartbeatEvery = Math.max(200, Math.min(5_000, (ctx.info.heartbeatTimeoutMs ?? 30_000) / 3));
    // Heartbeats only on the interval: a short call costs no heartbeat RPC at all, and an elicitation sends
    // none on its critical path (a heartbeat there would contend with the `elicit` update for the workflow's
    // lock on the server). The details say what the call does (leasing, calling, waiting for which request).
    const beat = setInterval(() => ctx.heartbeat(progress ? { ...phase, progress } : phase), heartbeatEvery);
    const reporter = progressReporter(ctx, workflowId, runId, input.callId);

    let lease;
    try {
      lease = await deps.pool.lease(input.server, ctx.cancellationSignal);
    } catch (err) {
      clearInterval(beat);
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
      failure(err, input.server);
    }

    const session = lease.session;
    // A tool the server does not list fails at once, naming what it has (no MCP request, no retry).
    if (Array.isArray(session.tools) && session.tools.length > 0 && !session.tools.some((t) => t.name === input.tool)) {
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

    // One listener per shared signal for the whole call, fanned out to the elicitations waiting at that
    // moment: a listener per elicitation on the activity's or the worker's signal would pile up (a server
    // may elicit many times at once; Node warns past 10).
    const onCancelled = fanOut(ctx.cancellationSignal);
    const onShutdown = fanOut(deps.shutdown);

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
        .executeUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE, { args: [{ callId: input.callId, request, ...flags() }], updateId: id })
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
        cleanups.push(
          onCancelled.add(() => {
            const reason = ctx.cancellationSignal.reason;
            const shutdown = reason === 'WORKER_SHUTDOWN' || (reason instanceof Error && reason.message === 'WORKER_SHUTDOWN');
            if (shutdown) resolve('worker-shutdown');
            else callAbort.abort(reason);
          }),
        );
        cleanups.push(onShutdown.add(() => resolve('worker-shutdown')));
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
      const round = await Promise.race([
        tracedToolCall(input.server, input.tool, (meta, spanContext) => {
          traceContext = spanContext;
          // The span's traceparent rides every round's tools/call `_meta` (each round is its own attempt's span).
          return session.callToolRound(input.tool, input.arguments, input.round ?? {}, {
            timeoutMs: input.toolTimeoutMs,
            signal: callAbort.signal,
            meta,
            onProgress: (p) => {
              progress = { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) };
              reporter.report(progress);
            },
          });
        }),
        released,
      ]);
      if (!(round instanceof Released) && !releasedWith && round.kind !== 'complete') {
        // Nothing is held while the human thinks: the session goes back to the pool (its state is known).
        await lease.release();
        return inputRequired(input, round);
      }
      const result = round instanceof Released ? round : round.kind === 'complete' ? round.result : (undefined as never);
      if (result instanceof Released) {
        void lease.release({ discard: true });
        return { status: 'released', request: result.request, reason: result.reason, ...flags() };
      }
      if (releasedWith) {
        void lease.release({ discard: true });
        return { status: 'released', request: releasedWith.request, reason: releasedWith.reason, ...flags() };
      }
      await lease.release();
      const size = jsonByteLength(result);
      if (size > MAX_RESULT_BYTES) {
        throw ApplicationFailure.nonRetryable(`tool "${input.tool}" of server "${input.server}" returned ${size} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`, FailureTypes.ResultTooLarge);
      }
      return { status: 'completed', result };
    } catch (err) {
      if (releasedWith) {
        void lease.release({ discard: true });
        return { status: 'released', request: releasedWith.request, reason: releasedWith.reason, ...flags() };
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
      reporter.stop();
      ctx.cancellationSignal.removeEventListener('abort', onCancel);
      onCancelled.dispose();
      onShutdown.dispose();
      session.elicitationHandler = undefined;
    }
  }

  /**
   * The arrival rules of every elicitation (contract/admit.ts), for a modern-era input request or a -32042 URL:
   * a round has no channel for an error per input request, so a refused one fails the call, naming the key.
   */
  function admitted(where: string, key: string, params: ElicitParams): ElicitParams {
    const admission = admitElicitation(params);
    if (!admission.ok) throw ApplicationFailure.nonRetryable(`${where}: input request "${key}": ${admission.message}`, FailureTypes.ElicitationRefused);
    return admission.params;
  }

  /** A round's input requests go back to the workflow, checked: only elicitations, and a bounded state. */
  function inputRequired(input: CallMcpToolInput, round: Exclude<RoundOutcome, { kind: 'complete' }>): CallMcpToolOutcome {
    const where = `tool "${input.tool}" of server "${input.server}"`;
    const sa = flags();
    if (round.kind === 'url_required') {
      const inputRequests: Record<string, { method: 'elicitation/create'; params: ElicitParams }> = {};
      round.elicitations.forEach((e, i) => {
        const params = admitted(where, `url${i + 1}`, { ...(e as ElicitParams), mode: 'url' as const });
        inputRequests[`url${i + 1}`] = { method: 'elicitation/create', params };
      });
      if (Object.keys(inputRequests).length === 0) {
        throw ApplicationFailure.nonRetryable(`${where} requires URL elicitation (-32042) but named no URL: ${round.message}`, FailureTypes.UnsupportedInputRequest);
      }
      return { status: 'input_required', form: 'url-error', inputRequests, ...sa };
    }
    if (round.requestState !== undefined) {
      const size = jsonByteLength(round.requestState);
      if (size > MAX_REQUEST_STATE_BYTES) {
        throw ApplicationFailure.nonRetryable(`${where} sent a requestState of ${size} bytes, over the limit of ${MAX_REQUEST_STATE_BYTES} bytes`, FailureTypes.RequestStateTooLarge);
      }
    }
    const inputRequests: Record<string, { method: 'elicitation/create'; params: ElicitParams }> = {};
    for (const r of readInputRequests(round.inputRequests)) {
      if (r.kind === 'unsupported') {
        throw ApplicationFailure.nonRetryable(
          `${where} asked for input of kind "${r.method}" (key "${r.key}"), which this client never declared: only elicitation (form and URL mode) is supported`,
          FailureTypes.UnsupportedInputRequest,
        );
      }
      inputRequests[r.key] = { method: 'elicitation/create', params: admitted(where, r.key, r.params) };
    }
    const size = jsonByteLength(inputRequests);
    if (size > MAX_RESULT_BYTES) {
      throw ApplicationFailure.nonRetryable(`${where} sent input requests of ${size} bytes, over the ${MAX_RESULT_BYTES}-byte limit of a Temporal payload`, FailureTypes.InputRequestsTooLarge);
    }
    return { status: 'input_required', form: 'mrtr', inputRequests, ...(round.requestState !== undefined ? { requestState: round.requestState } : {}), ...sa };
  }

  /** Sends progress to the workflow as the internal progress signal: at once, then at most once a second (the last one wins). */
  function progressReporter(ctx: Context, workflowId: string, runId: string | undefined, callId: string) {
    let last = 0;
    let queued: { progress: number; total?: number; message?: string } | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const send = (p: { progress: number; total?: number; message?: string }) => {
      last = Date.now();
      clientOf(ctx)
        .workflow.getHandle(workflowId, runId)
        .signal(PROGRESS_SIGNAL, { callId, ...p })
        .catch((err) => ctx.log.warn('could not report progress to the workflow', { error: String(err) }));
    };
    return {
      report(p: { progress: number; total?: number; message?: string }) {
        if (stopped) return;
        const wait = PROGRESS_EVERY_MS - (Date.now() - last);
        if (wait <= 0 && !timer) return send(p);
        queued = p;
        timer ??= setTimeout(() => {
          timer = undefined;
          if (queued && !stopped) send(queued);
          queued = undefined;
        }, Math.max(0, wait));
      },
      stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
      },
    };
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

  /**
   * Tell the configured webhook of a new pending request. A non-2xx answer or no answer in time fails the
   * attempt (retried with backoff by the workflow's retry policy). A worker without `notify` sends nothing.
   */
  async function notifyPending(input: NotifyPendingInput): Promise<{ sent: boolean; status?: number }> {
    const notify = deps.notify;
    if (!notify) return { sent: false };
    const ctx = Context.current();
    const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': `${input.workflowId}/${input.request.id}` };
    try {
      for (const [k, v] of Object.entries(notify.headers ?? {})) headers[k.toLowerCase()] = expandEnv(v, { server: 'notify', field: `headers.${k}` });
    } catch (err) {
      throw ApplicationFailure.retryable((err as Error).message, (err as Error).name);
    }
    let status: number;
    try {
      const res = await fetch(notify.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(notificationBody(input, notify)),
        signal: AbortSignal.any([ctx.cancellationSignal, AbortSignal.timeout(NOTIFY_TIMEOUT_MS)]),
        redirect: 'error',
      });
      status = res.status;
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw new CancelledFailure('notification cancelled');
      const e = err as Error & { cause?: { code?: string } };
      throw ApplicationFailure.retryable(`webhook ${new URL(notify.url).origin}: ${e.name === 'TimeoutError' ? `no answer within ${NOTIFY_TIMEOUT_MS} ms` : (e.cause?.code ?? e.message)}`, FailureTypes.NotifyFailed);
    }
    if (status < 200 || status >= 300) throw ApplicationFailure.retryable(`webhook ${new URL(notify.url).origin} answered HTTP ${status}`, FailureTypes.NotifyFailed);
    return { sent: true, status };
  }

  return { callMcpTool: measuredToolCall(callMcpTool), listMcpTools, notifyPending };
}

export type Activities = ReturnType<typeof createActivities>;
