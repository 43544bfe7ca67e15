/**
 * The elicitation host: durable state of the requests that MCP servers made of a human, inside one
 * workflow. Installed once per workflow (handlers for `answer`, `submitAnswer`, `pending`,
 * `pendingDetails` and the internal `elicit` update). Deterministic: workflow APIs and the contract only.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle, isCancellation, log, patched, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { urlHost } from '../contract/admit.js';
import { checkAnswer, type AnswerCheck } from '../contract/answer.js';
import { FailureTypes } from '../contract/failures.js';
import { deriveRoundRequestId } from '../contract/id.js';
import { answerToElicitResult, elicitationToRequest } from '../contract/mapping.js';
import type { Answer, ElicitParams, ElicitResult, Request } from '../contract/index.js';
import { durationProblem, MAX_DURATION_MS, type Duration } from './duration.js';
import {
  awaitingInputKey,
  answerSignal,
  childPendingSignal,
  childResolvedSignal,
  elicitUpdate,
  pendingDetailsQuery,
  pendingQuery,
  progressQuery,
  progressSignal,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type ChildPending,
  type ElicitInput,
  type ElicitOutcome,
  type CallProgress,
  type PendingContext,
  type PendingRequestDetails,
  type SubmitAnswerResult,
  type WaitForPendingInput,
} from './messages.js';
import { requestPending, requestResolved } from './metrics.js';


/** Default time a request may stay unanswered before it expires into `cancel`. */
export const DEFAULT_EXPIRES_IN_MS = 24 * 60 * 60 * 1000;
/** Default time a tool call holds its MCP session and worker slot while it waits for a human. */
export const DEFAULT_HOLD_FOR_MS = 3 * 60 * 1000;
/**
 * At most this many activities wait inline (inside an `elicit` update) at once. Temporal allows about
 * 10 updates in flight per run; past this, requests are released at once and answered by a re-run.
 */
export const MAX_INLINE_WAITERS = 6;
/** At most this many `waitForPending` updates wait at once (with the inline waiters, under Temporal's ~10 in flight). */
export const MAX_PENDING_WATCHERS = 2;
/** Default and longest wait of one `waitForPending` update. */
export const DEFAULT_WATCH_MS = 60_000;
export const MAX_WATCH_MS = 10 * 60_000;
export { MAX_DURATION_MS };

export interface CallRecord extends PendingContext {
  expiresInMs: number;
  holdForMs: number;
}

/** One request of an MRTR round: the server's key, the request id, and the elicitation's mode. */
export interface RoundRequest {
  key: string;
  id: string;
  mode: 'form' | 'url';
}

/**
 * A call waiting in a modern-era (MRTR) round: everything the next round needs besides the answers (which the
 * host holds as the round's requests resolve). Carried across continue-as-new, so the next run resumes the call
 * at this round (its number, `requestState` as given, the round's request ids), not at round 1.
 */
export interface RoundWait {
  round: number;
  requests: RoundRequest[];
  /** Opaque; carried as given, never parsed or logged. */
  requestState?: string;
  form: 'mrtr' | 'url-error';
}

interface Entry {
  request: Request;
  callId: string;
  /** Workflow time (ms) when the request was recorded (for the time-to-answer metric). */
  since?: number;
}

/** What the host carries across continue-as-new. */
export interface HostSnapshot {
  calls: CallRecord[];
  pending: Entry[];
  resolved: Array<{ answer: Answer; callId: string }>;
  nextCall: number;
  /** Requests of child workflows, listed here and answered through here. */
  remote?: ChildPending[];
  /** Ids of child requests this workflow already forwarded an answer for. */
  forwarded?: string[];
  /** How the requests of the latest finished calls ended (bounded), to say why a late answer is refused. */
  finished?: Array<{ id: string; how: string }>;
  /** Calls waiting in a modern-era round, with the round's state (the next run resumes them at that round). */
  rounds?: Array<{ callId: string } & RoundWait>;
}

/** How many finished requests the host remembers (and carries) to explain a late answer. */
export const FINISHED_REMEMBERED = 32;

/**
 * Notifications of new pending requests: an activity, durable and retried with backoff, never awaited (a
 * failing webhook never fails or delays the tool call). Scheduled once per request, when it is recorded.
 */
const { notifyPending } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 15 },
});

function parseDuration(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  const r = durationProblem(value);
  if ('problem' in r) throw ApplicationFailure.nonRetryable(`field "${field}" ${r.problem}, got ${JSON.stringify(value) ?? String(value)}`, FailureTypes.InvalidInput);
  return r.ms;
}

export class ElicitationHost {
  private readonly calls = new Map<string, CallRecord>();
  private readonly pending = new Map<string, Entry>();
  private readonly resolved = new Map<string, { answer: Answer; callId: string }>();
  private readonly released = new Set<string>();
  /** Calls released and waiting for an answer (no activity running), by call id → request id. */
  private readonly waiting = new Map<string, string>();
  /** Calls of `waiting` that wait in a modern-era (MRTR) round, with the round's state. */
  private readonly roundWaiting = new Map<string, RoundWait>();
  private inlineWaiters = 0;
  private watchers = 0;
  /** The run is finishing (completing, failing or continuing as new): waiting watchers return now. */
  private closing = false;
  private nextCall = 1;
  private callIdPrefix = '';
  private searchAttributeEnabled: boolean;
  /** Pending requests of child tool calls, by request id. */
  private readonly remote = new Map<string, ChildPending>();
  private readonly forwarded = new Set<string>();
  /** The last progress notification of each running call (not carried across continue-as-new). */
  private readonly progress = new Map<string, CallProgress>();
  private readonly finishedCalls = new Set<string>();
  /** Requests whose expiry timer this run started (a request's timer is started once). */
  private readonly expiryWatched = new Set<string>();
  /**
   * A request waited for inline runs one timer, at the earlier of holdFor and its expiry; its expiry timer
   * starts only if the call is released. Older runs started both timers at once: their histories replay
   * with both (the marker is recorded when the host is installed, off any request's critical path).
   */
  private readonly oneTimerInline: boolean;
  /**
   * Bounded state (versioned): a finished call's record, answers and timers are dropped, so what a run carries
   * into continue-as-new is bounded by what is still pending or running. Also turns on the bounded pipeline carry
   * and the continue-as-new of `mcpToolCall`. Older runs replay as they ran.
   */
  readonly bounded: boolean;
  /** How the requests of the latest finished calls ended (at most FINISHED_REMEMBERED). */
  private finished: Array<{ id: string; how: string }> = [];
  /** Updates this run has handled (Temporal allows 2,000 per run): a reason to continue as new. */
  updatesHandled = 0;
  /** Where this (child) workflow reports its requests: the parent's workflow id and the step. */
  private reportTo: { parent: string; step?: string } | undefined;
  /** The worker's config names a webhook (it says so in the `elicit` update, so this replays). */
  private notifyEnabled = false;

  constructor(snapshot?: HostSnapshot) {
    let registered = false;
    try {
      registered = workflowInfo().typedSearchAttributes.get(awaitingInputKey) !== undefined;
    } catch {
      registered = false;
    }
    this.searchAttributeEnabled = registered;
    // Decided once per run, here: `patched` answers false while it replays an older run and would answer
    // true once that run goes on live on this code, so asking per request would mix both ways in one run.
    this.oneTimerInline = patched('durable-mcp:one-timer-inline');
    this.bounded = patched('durable-mcp:bounded-state');
    if (snapshot) this.restore(snapshot);
    this.installHandlers();
  }

  private installHandlers(): void {
    // Handlers stay synchronous for this workflow's own requests (the order of commands is part of the
    // history: committed histories must replay); only answers forwarded to a child wait for the signal.
    setHandler(answerSignal, (raw: unknown) => {
      const check = this.check(raw);
      if (!check.ok) {
        log.warn('answer signal dropped', { reason: check.reason });
        return;
      }
      // A forward to a child that has closed must not fail this workflow: log it, the request is gone.
      return this.accept(check.answer)?.catch((err) => log.warn('could not forward the answer to the child workflow', { id: check.answer.id, error: String(err) }));
    });
    setHandler(
      submitAnswerUpdate,
      (raw: unknown): SubmitAnswerResult | Promise<SubmitAnswerResult> => {
        this.updatesHandled++;
        const check = this.check(raw);
        if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, check.type);
        const result = { id: check.answer.id, action: answerToElicitResult(check.answer).action };
        const forwarding = this.accept(check.answer);
        return forwarding ? forwarding.then(() => result) : result;
      },
      {
        validator: (raw: unknown) => {
          const check = this.check(raw);
          if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, check.type);
        },
      },
    );
    setHandler(pendingQuery, () => this.pendingRequests());
    setHandler(pendingDetailsQuery, () => this.pendingDetails());
    setHandler(progressQuery, () => [...this.progress.values()]);
    setHandler(progressSignal, ({ callId, progress, total, message }) => {
      const call = this.calls.get(callId);
      if (!call || this.finishedCalls.has(callId) || typeof progress !== 'number') return;
      const p: CallProgress = { callId, server: call.server, tool: call.tool, progress };
      if (call.step !== undefined) p.step = call.step;
      if (typeof total === 'number') p.total = total;
      if (typeof message === 'string') p.message = message;
      this.progress.set(callId, p);
    });
    setHandler(childPendingSignal, (p: ChildPending) => {
      if (!this.forwarded.has(p.request.id)) this.remote.set(p.request.id, p);
      this.syncSearchAttribute();
    });
    setHandler(childResolvedSignal, ({ id }: { child: string; id: string }) => {
      this.remote.delete(id);
      this.syncSearchAttribute();
    });
    setHandler(
      waitForPendingUpdate,
      (input?: WaitForPendingInput) => {
        this.updatesHandled++;
        return this.watch(input);
      },
      {
        validator: (input?: WaitForPendingInput) => {
          const problem = watchInputProblem(input);
          if (problem) throw new Error(`waitForPending: ${problem}`);
          if (this.watchers >= MAX_PENDING_WATCHERS) {
            throw new Error(`waitForPending: ${MAX_PENDING_WATCHERS} callers already wait on this workflow (Temporal limits updates in flight); poll the pending query instead`);
          }
        },
        // A user's workflow that calls tools may return while a watcher waits: the watcher then learns that the
        // workflow completed (as from any closed workflow), and the SDK need not warn about an unfinished handler.
        unfinishedPolicy: 'ABANDON',
      },
    );
    setHandler(
      elicitUpdate,
      (input: ElicitInput) => {
        this.updatesHandled++;
        return this.onElicit(input);
      },
      {
        validator: (input: ElicitInput) => {
          if (!input || typeof input.callId !== 'string' || !input.request || typeof input.request.id !== 'string') {
            throw new Error('elicit: input must be { callId, request }');
          }
        },
      },
    );
  }

  private hasUnseen(seen: Set<string>): boolean {
    for (const id of this.pending.keys()) if (!seen.has(id)) return true;
    for (const id of this.remote.keys()) if (!seen.has(id)) return true;
    return false;
  }

  private async watch(input: WaitForPendingInput | undefined): Promise<Request[]> {
    const seen = new Set(input?.seen ?? []);
    if (!this.closing && !this.hasUnseen(seen)) {
      this.watchers++;
      try {
        await condition(() => this.closing || this.hasUnseen(seen), input?.timeoutMs ?? DEFAULT_WATCH_MS);
      } finally {
        this.watchers--;
      }
    }
    return this.pendingRequests();
  }

  /** The run is about to finish: callers waiting in `waitForPending` get their answer now, not at their timeout. */
  close(): void {
    this.closing = true;
  }

  /** The run goes on after all (a continue-as-new that did not happen): watchers wait again. */
  reopen(): void {
    this.closing = false;
  }

  /** Start a tool call: returns its stable id (assigned here, never by an attempt). */
  newCall(context: Omit<PendingContext, 'callId'> & { expiresInMs?: Duration; holdForMs?: Duration }, callId?: string): CallRecord {
    const id = callId ?? `${this.callIdPrefix}c${this.nextCall++}`;
    const existing = this.calls.get(id);
    if (existing) return existing;
    const record: CallRecord = {
      callId: id,
      server: context.server,
      tool: context.tool,
      ...(context.step !== undefined ? { step: context.step } : {}),
      expiresInMs: parseDuration(context.expiresInMs, DEFAULT_EXPIRES_IN_MS, 'elicitation.expiresIn'),
      holdForMs: parseDuration(context.holdForMs, DEFAULT_HOLD_FOR_MS, 'elicitation.holdFor'),
    };
    this.calls.set(id, record);
    return record;
  }

  /** Answers recorded for a call's requests, by request id: handed to every new attempt. */
  recordedFor(callId: string): Record<string, Answer> {
    const out: Record<string, Answer> = {};
    for (const [id, r] of this.resolved) if (r.callId === callId) out[id] = r.answer;
    return out;
  }

  /**
   * Register a request as pending (idempotent). Starts its expiry timer, unless `deferExpiry` (an inline
   * wait that keeps the deadline itself and starts the expiry timer when it ends unanswered).
   */
  register(request: Request, callId: string, { deferExpiry = false }: { deferExpiry?: boolean } = {}): Request {
    const known = this.pending.get(request.id);
    if (known) return known.request;
    const resolved = this.resolved.get(request.id);
    if (resolved) return request;
    const call = this.calls.get(callId);
    const expiresInMs = call?.expiresInMs ?? DEFAULT_EXPIRES_IN_MS;
    const expiresAtMs = Date.now() + expiresInMs;
    const stored: Request = { ...request, expiresAt: new Date(expiresAtMs).toISOString() };
    const entry: Entry = { request: stored, callId, since: Date.now() };
    this.pending.set(request.id, entry);
    requestPending(call?.server ?? '', stored.kind);
    if (!deferExpiry) this.watchExpiry(request.id, expiresAtMs);
    this.syncSearchAttribute();
    this.report('pending', entry);
    this.notify(entry);
    return stored;
  }

  /**
   * Record all the elicitations of one modern-era (MRTR) round as pending at once (idempotent: a round
   * asked again derives the same ids and finds them pending or answered). Each goes through the seed
   * mapping (form → input, URL → authorization) with the params as the server sent them.
   */
  registerRound(callId: string, round: number, inputRequests: Record<string, { params: ElicitParams }>): RoundRequest[] {
    const out: RoundRequest[] = [];
    for (const [key, { params }] of Object.entries(inputRequests)) {
      const id = deriveRoundRequestId(callId, round, key, params);
      this.register(elicitationToRequest(params, { id }), callId);
      out.push({ key, id, mode: params.mode === 'url' ? 'url' : 'form' });
    }
    return out;
  }

  /** The round's answers as the server reads them (key → ElicitResult): expired or cancelled is `cancel`. */
  roundResponses(requests: RoundRequest[]): Record<string, ElicitResult> {
    const out: Record<string, ElicitResult> = {};
    for (const r of requests) out[r.key] = answerToElicitResult(this.resolved.get(r.id)?.answer ?? { id: r.id, ok: false, reason: 'cancelled' }, { mode: r.mode });
    return out;
  }

  /**
   * The worker's config names a webhook (an activity said so, in history): requests recorded from now on are
   * notified. Paths that record requests from an activity's result (not the `elicit` update) call this too.
   */
  enableNotify(): void {
    this.notifyEnabled = true;
  }

  /** Run the `notifyPending` activity for a newly recorded request (versioned: older histories have none). */
  private notify(entry: Entry): void {
    if (!this.notifyEnabled || !patched('durable-mcp:notify-pending')) return;
    const workflowId = this.reportTo?.parent ?? workflowInfo().workflowId;
    notifyPending({ workflowId, request: entry.request, context: this.contextOf(entry, this.reportTo?.step) }).catch((err) => {
      if (!isCancellation(err)) log.warn('could not notify of a pending request', { id: entry.request.id, error: String(err) });
    });
  }

  /** Start the expiry timer of a pending request, once. */
  private watchExpiry(id: string, expiresAtMs: number): void {
    if (this.expiryWatched.has(id)) return;
    this.expiryWatched.add(id);
    void (async () => {
      const wait = Math.max(0, expiresAtMs - Date.now());
      let answered: boolean;
      try {
        answered = await condition(() => !this.pending.has(id), wait);
      } catch (err) {
        // The workflow is being cancelled: its timers are cancelled with it, and the run ends. Nothing awaits
        // this promise, so a rejection here would fail every workflow task of the cancellation.
        if (isCancellation(err)) return;
        throw err;
      }
      if (!answered) this.expire(id);
    })();
  }

  private expire(id: string): void {
    if (!this.pending.has(id)) return;
    log.info('request expired', { id });
    this.resolve({ id, ok: false, reason: 'expired' });
  }

  /** The activity gave up waiting inline: wake its `elicit` update. */
  markReleased(id: string): void {
    this.released.add(id);
  }

  isResolved(id: string): boolean {
    return this.resolved.has(id);
  }

  answerFor(id: string): Answer | undefined {
    return this.resolved.get(id)?.answer;
  }

  /** Record a checked answer here, or forward it to the child workflow whose request it is. */
  private accept(answer: Answer): Promise<void> | undefined {
    const remote = this.remote.get(answer.id);
    if (remote) {
      this.remote.delete(answer.id);
      this.forwarded.add(answer.id);
      this.syncSearchAttribute();
      return getExternalWorkflowHandle(remote.child)
        .signal(answerSignal, answer)
        .catch((err) => {
          // The child is gone: the request is not answered after all.
          this.forwarded.delete(answer.id);
          throw ApplicationFailure.nonRetryable(`request "${answer.id}" belongs to child workflow "${remote.child}", which could not take the answer: ${(err as Error).message}`, 'ChildUnreachable');
        });
    }
    this.resolve(answer, { answered: true });
    return undefined;
  }

  /** A child finished: its requests are no longer pending here. */
  forgetChild(childWorkflowId: string): void {
    for (const [id, r] of [...this.remote]) if (r.child === childWorkflowId) this.remote.delete(id);
    this.syncSearchAttribute();
  }

  /** Report this workflow's requests to a parent (a pipeline), which lists them and routes answers here. */
  reportToParent(parent: string, step?: string, callIdPrefix?: string): void {
    this.reportTo = { parent, step };
    // Request ids derive from call ids: a prefix keeps the child's ids apart from the parent's own.
    if (callIdPrefix) this.callIdPrefix = callIdPrefix;
    for (const entry of this.pending.values()) this.report('pending', entry);
  }

  private report(kind: 'pending' | 'resolved', entry: Entry): void {
    if (!this.reportTo) return;
    const parent = getExternalWorkflowHandle(this.reportTo.parent);
    const child = workflowInfo().workflowId;
    const sent =
      kind === 'pending'
        ? parent.signal(childPendingSignal, { child, request: entry.request, context: this.contextOf(entry, this.reportTo.step) })
        : parent.signal(childResolvedSignal, { child, id: entry.request.id });
    // The parent may be gone (terminated, or done): the child's own inbox still works.
    sent.catch((err) => log.warn('could not report to the parent workflow', { error: String(err) }));
  }

  private contextOf(e: Entry, step?: string): PendingContext {
    const call = this.calls.get(e.callId);
    const context: PendingContext = { callId: e.callId, server: call?.server ?? '', tool: call?.tool ?? '' };
    const s = step ?? call?.step;
    if (s !== undefined) context.step = s;
    // URL mode: where the link goes, beside it (the URL was admitted: https:, or http: to a loopback host).
    const host = e.request.kind === 'authorization' ? urlHost(e.request.url) : undefined;
    if (host !== undefined) context.host = host;
    return context;
  }

  /** Validate an answer against the pending request it names, without changing any state. */
  check(raw: unknown): AnswerCheck {
    const id = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
    if (typeof id === 'string') {
      const remote = this.remote.get(id);
      if (remote) return checkAnswer(raw, remote.request);
      if (this.forwarded.has(id)) return { ok: false, reason: `request "${id}" is no longer pending: it was already answered`, type: 'AlreadyResolved' };
      const done = this.resolved.get(id);
      if (done && !this.pending.has(id)) {
        const how = howResolved(done.answer);
        return { ok: false, reason: `request "${id}" is no longer pending: it was already ${how}`, type: how === 'expired' ? 'Expired' : 'AlreadyResolved' };
      }
      const gone = this.finished.find((f) => f.id === id);
      if (gone) return { ok: false, reason: `request "${id}" is no longer pending: it was already ${gone.how}`, type: gone.how === 'expired' ? 'Expired' : 'AlreadyResolved' };
    }
    return checkAnswer(raw, typeof id === 'string' ? this.pending.get(id)?.request : undefined);
  }

  /** Record the first resolution of a pending request. Later ones are ignored (the checks reject them). */
  resolve(answer: Answer, { answered = false }: { answered?: boolean } = {}): boolean {
    const entry = this.pending.get(answer.id);
    if (!entry) return false;
    this.pending.delete(answer.id);
    // A person's answer (not an expiry or a withdrawal) also records how long it took.
    const waited = answered && entry.since !== undefined ? Date.now() - entry.since : undefined;
    requestResolved(this.calls.get(entry.callId)?.server ?? '', entry.request.kind, answer, waited);
    this.resolved.set(answer.id, { answer, callId: entry.callId });
    this.syncSearchAttribute();
    this.report('resolved', entry);
    return true;
  }

  /**
   * Withdraw every pending request of this workflow (it is failing or cancelled): its own are cancelled,
   * and its children's are no longer listed here (this run can no longer route answers to them).
   */
  finishAll(): void {
    for (const callId of new Set([...this.pending.values()].map((e) => e.callId))) this.finishCall(callId);
    if (this.remote.size > 0) {
      this.remote.clear();
      this.syncSearchAttribute();
    }
  }

  /** A call finished: requests it no longer asks are withdrawn (cancelled), nothing dangles. */
  finishCall(callId: string): void {
    this.progress.delete(callId);
    this.finishedCalls.add(callId);
    for (const [id, entry] of [...this.pending]) {
      if (entry.callId === callId) this.resolve({ id, ok: false, reason: 'cancelled' });
    }
    if (this.bounded) this.forgetCall(callId);
  }

  /** Drop everything of a finished call (its record, answers, timers' bookkeeping); remember how its requests ended. */
  private forgetCall(callId: string): void {
    this.calls.delete(callId);
    this.waiting.delete(callId);
    this.roundWaiting.delete(callId);
    for (const [id, r] of [...this.resolved]) {
      if (r.callId !== callId) continue;
      this.resolved.delete(id);
      this.released.delete(id);
      this.expiryWatched.delete(id);
      this.finished.push({ id, how: howResolved(r.answer) });
    }
    if (this.finished.length > FINISHED_REMEMBERED) this.finished.splice(0, this.finished.length - FINISHED_REMEMBERED);
  }

  /** Pending requests: this workflow's own, then those of its child tool calls. */
  pendingRequests(): Request[] {
    return [...[...this.pending.values()].map((e) => e.request), ...[...this.remote.values()].map((r) => r.request)];
  }

  pendingDetails(): PendingRequestDetails[] {
    return [
      ...[...this.pending.values()].map((e) => ({ request: e.request, context: this.contextOf(e) })),
      ...[...this.remote.values()].map((r) => ({ request: r.request, context: r.context })),
    ];
  }

  /**
   * Mark a call as released and waiting for `requestId` (no activity runs for it meanwhile). `round`: it waits
   * in a modern-era (MRTR) round; the round's state is carried across continue-as-new with the host's snapshot.
   */
  setWaiting(callId: string, requestId: string | undefined, { round }: { round?: RoundWait } = {}): void {
    if (requestId === undefined) {
      this.waiting.delete(callId);
      this.roundWaiting.delete(callId);
    } else {
      this.waiting.set(callId, requestId);
      if (round) this.roundWaiting.set(callId, round);
      else this.roundWaiting.delete(callId);
    }
  }

  /** The modern-era round a call waits in (restored after continue-as-new: the call resumes at it). */
  roundWaitOf(callId: string): RoundWait | undefined {
    return this.roundWaiting.get(callId);
  }

  /** The id of this run's only call, if it has exactly one (an `mcpToolCall` workflow). */
  soleCallId(): string | undefined {
    return this.calls.size === 1 ? this.calls.keys().next().value : undefined;
  }

  /** The request a released call waits for, if it waits. */
  waitingFor(callId: string): string | undefined {
    return this.waiting.get(callId);
  }

  hasPending(): boolean {
    return this.pending.size > 0 || this.remote.size > 0;
  }

  private expiresAtOf(request: Request): number {
    return request.expiresAt ? Date.parse(request.expiresAt) : Date.now() + DEFAULT_EXPIRES_IN_MS;
  }

  /** Wait inline (counted) until the request is resolved or released, or `timeoutMs` passes; false on timeout. */
  private async waitInline(id: string, timeoutMs: number): Promise<boolean> {
    this.inlineWaiters++;
    try {
      return await condition(() => this.resolved.has(id) || this.released.has(id), timeoutMs);
    } finally {
      this.inlineWaiters--;
    }
  }

  private async onElicit({ callId, request, searchAttribute, notify }: ElicitInput): Promise<ElicitOutcome> {
    if (searchAttribute) this.enableSearchAttribute();
    if (notify) this.enableNotify();
    const done = this.resolved.get(request.id);
    if (done) return { status: 'answered', answer: done.answer };
    const id = request.id;
    const stored = this.register(request, callId, { deferExpiry: this.oneTimerInline });
    const expiresAtMs = this.expiresAtOf(stored);
    const holdForMs = this.calls.get(callId)?.holdForMs ?? DEFAULT_HOLD_FOR_MS;
    if (holdForMs <= 0 || this.inlineWaiters >= MAX_INLINE_WAITERS) {
      this.watchExpiry(id, expiresAtMs);
      return { status: 'released', request: stored };
    }
    // One timer while the call waits inline: the earlier of holdFor and the request's expiry (unless its
    // expiry timer already runs, as for a request asked again after a release).
    const untilExpiry = this.oneTimerInline && !this.expiryWatched.has(id) ? Math.max(0, expiresAtMs - Date.now()) : Infinity;
    const expiryFirst = untilExpiry <= holdForMs;
    const woken = expiryFirst && untilExpiry === 0 ? false : await this.waitInline(id, expiryFirst ? untilExpiry : holdForMs);
    if (this.pending.has(id)) {
      if (expiryFirst && !woken) this.expire(id);
      else this.watchExpiry(id, expiresAtMs);
    }
    const answer = this.resolved.get(id)?.answer;
    return answer ? { status: 'answered', answer } : { status: 'released', request: stored };
  }

  /**
   * The worker found the search attribute registered (it says so in the `elicit` update or the activity's
   * result, so this is recorded in history and replays): from now on keep it up to date.
   */
  enableSearchAttribute(): void {
    // A child reporting to its parent is listed through the parent (one inbox), not twice.
    if (this.searchAttributeEnabled || this.reportTo) return;
    this.searchAttributeEnabled = true;
    this.syncSearchAttribute();
  }

  private lastAwaiting: boolean | undefined;
  private syncSearchAttribute(): void {
    if (!this.searchAttributeEnabled) return;
    const awaiting = this.pending.size > 0 || this.remote.size > 0;
    if (awaiting === this.lastAwaiting) return;
    this.lastAwaiting = awaiting;
    upsertSearchAttributes([{ key: awaitingInputKey, value: awaiting }]);
  }

  snapshot(): HostSnapshot {
    return {
      calls: [...this.calls.values()],
      pending: [...this.pending.values()],
      resolved: [...this.resolved.values()],
      nextCall: this.nextCall,
      remote: [...this.remote.values()],
      forwarded: [...this.forwarded],
      ...(this.finished.length > 0 ? { finished: [...this.finished] } : {}),
      ...(this.roundWaiting.size > 0 ? { rounds: [...this.roundWaiting].map(([callId, r]) => ({ callId, ...r })) } : {}),
    };
  }

  private restore(s: HostSnapshot): void {
    this.nextCall = s.nextCall;
    for (const r of s.remote ?? []) this.remote.set(r.request.id, r);
    for (const id of s.forwarded ?? []) this.forwarded.add(id);
    this.finished = [...(s.finished ?? [])];
    for (const { callId, ...r } of s.rounds ?? []) this.roundWaiting.set(callId, r);
    for (const c of s.calls) this.calls.set(c.callId, c);
    for (const r of s.resolved) this.resolved.set(r.answer.id, r);
    for (const e of s.pending) {
      this.pending.set(e.request.id, e);
      this.watchExpiry(e.request.id, this.expiresAtOf(e.request));
    }
  }
}

function howResolved(answer: Answer): string {
  return answer.ok ? 'accepted' : answer.reason === 'expired' ? 'expired' : answer.reason === 'declined' ? 'declined' : 'cancelled';
}

function watchInputProblem(input: unknown): string | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input !== 'object' || Array.isArray(input)) return `input must be an object like {"seen":[…],"timeoutMs":…}, got ${JSON.stringify(input)}`;
  const { seen, timeoutMs, ...rest } = input as WaitForPendingInput & Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) return `unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')}; the input has only seen, timeoutMs`;
  if (seen !== undefined && (!Array.isArray(seen) || seen.some((id) => typeof id !== 'string'))) return `field "seen" must be an array of request ids, got ${JSON.stringify(seen)}`;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_WATCH_MS)) {
    return `field "timeoutMs" must be a number of milliseconds above 0 and at most ${MAX_WATCH_MS}, got ${JSON.stringify(timeoutMs)}`;
  }
  return undefined;
}

let host: ElicitationHost | undefined;

/** The workflow's elicitation host, installed on first use (once per workflow execution). */
export function useElicitationHost(snapshot?: HostSnapshot): ElicitationHost {
  if (!host) host = new ElicitationHost(snapshot);
  return host;
}
