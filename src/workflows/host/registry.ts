/**
 * The request registry: this workflow's own requests (pending, then resolved), the calls that ask them, their
 * inline waits, and the check of an answer against them. Their expiry timers are in expiry.ts, the modern era's
 * rounds in rounds.ts. What it records is passed on through the hooks its host implements (the search attribute,
 * the parent workflow). Deterministic: workflow APIs only.
 */
import { condition, isCancellation, log, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { urlHost } from '../../contract/admit.js';
import { checkAnswer, type AnswerCheck } from '../../contract/answer.js';
import type { Answer, ElicitParams, ElicitResult, Request } from '../../contract/index.js';
import type { Duration } from '../duration.js';
import { durationOption } from '../input.js';
import { ARGUMENTS_SHOWN, type CallProgress, type ElicitOutcome, type PendingContext } from '../messages.js';
import { cut } from './visibility.js';
import { requestPending, requestResolved } from '../../telemetry/workflow-metrics.js';
import { DEFAULT_EXPIRES_IN_MS, ExpiryTimers, expiresAtOf } from './expiry.js';
import { recordRound, roundResponses, RoundWaits, type RoundRequest, type RoundWait } from './rounds.js';
/** Default time a tool call holds its MCP session and worker slot while it waits for a human. */
export const DEFAULT_HOLD_FOR_MS = 3 * 60 * 1000;
/**
 * At most this many activities wait inline (inside an `elicit` update) at once. Temporal allows about
 * 10 updates in flight per run; past this, requests are released at once and answered by a re-run.
 */
export const MAX_INLINE_WAITERS = 6;
/** How many finished requests the host remembers (and carries) to explain a late answer. */
export const FINISHED_REMEMBERED = 32;

export interface CallRecord extends Omit<PendingContext, 'askedAt'> {
  expiresInMs: number;
  holdForMs: number;
}

/** How a request was resolved, beside its answer: who (see Resolution's `by`) and when (workflow time, ISO 8601). */
export interface ResolvedBy {
  by: string;
  at: string;
}

export interface PendingEntry {
  request: Request;
  callId: string;
  /** Workflow time (ms) when the request was recorded (for the time-to-answer metric). */
  since?: number;
}

/** What the registry carries across continue-as-new (part of the host's snapshot). */
export interface RegistrySnapshot {
  calls: CallRecord[];
  pending: PendingEntry[];
  resolved: Array<{ answer: Answer; callId: string }>;
  nextCall: number;
  /** How the requests of the latest finished calls ended (bounded), to say why a late answer is refused. */
  finished?: Array<{ id: string; how: string }>;
  /** Calls waiting in a modern-era round, with the round's state (the next run resumes them at that round). */
  rounds?: Array<{ callId: string } & RoundWait>;
}

/** The id an answer names, if it names one. */
export function answerId(raw: unknown): unknown {
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
}

/**
 * Notifications of new pending requests: an activity, durable and retried with backoff, never awaited (a
 * failing webhook never fails or delays the tool call). Scheduled once per request, when it is recorded.
 */
const { notifyPending } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 15 },
});

export abstract class RequestRegistry {
  private readonly calls = new Map<string, CallRecord>();
  protected readonly pending = new Map<string, PendingEntry>();
  private readonly resolved = new Map<string, { answer: Answer; callId: string }>();
  private readonly released = new Set<string>();
  /** Calls released and waiting for an answer (no activity running), by call id → request id. */
  private readonly waiting = new Map<string, string>();
  /** Calls of `waiting` that wait in a modern-era (MRTR) round, with the round's state. */
  private readonly roundWaiting = new RoundWaits();
  private inlineWaiters = 0;
  private nextCall = 1;
  protected callIdPrefix = '';
  /** The last progress notification of each running call (not carried across continue-as-new). */
  private readonly progress = new Map<string, CallProgress>();
  private readonly finishedCalls = new Set<string>();
  /** The expiry timers of pending requests (each started once per run). */
  private readonly expiry = new ExpiryTimers(
    (id) => this.pending.has(id),
    (id) => this.expire(id),
  );
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
  /** Whether this run keeps the listing memo (see `listingMemo`); undefined until first asked. */
  private listingDecision: boolean | undefined;
  /** The worker's config names a webhook (it says so in the `elicit` update, so this replays). */
  private notifyEnabled = false;

  constructor() {
    // Decided once per run, here: `patched` answers false while it replays an older run and would answer
    // true once that run goes on live on this code, so asking per request would mix both ways in one run.
    this.oneTimerInline = patched('durable-mcp:one-timer-inline');
    this.bounded = patched('durable-mcp:bounded-state');
  }

  /**
   * The listing memo (versioned): the workflow keeps its pending requests with their context in its memo, and its
   * listing search attributes current (DESIGN §8); older runs replay as they ran. Asked only once the workflow is
   * listable (a registered search attribute), so a run that is never listed records no marker; decided once per run.
   */
  protected get listingMemo(): boolean {
    this.listingDecision ??= patched('durable-mcp:listing-memo');
    return this.listingDecision;
  }

  /** A request was recorded as pending, or resolved: the host updates its search attribute and tells its parent. */
  protected abstract changed(kind: 'pending' | 'resolved', entry: PendingEntry, resolution?: { answer: Answer } & ResolvedBy): void;
  /** Where this workflow's requests are answered (its own id, or its parent's) and the step they belong to. */
  protected abstract inbox(): { workflowId: string; step?: string };

  /** Start a tool call: returns its stable id (assigned here, never by an attempt). */
  newCall(
    context: Omit<PendingContext, 'callId' | 'arguments' | 'askedAt'> & { arguments?: Record<string, unknown>; expiresInMs?: Duration; holdForMs?: Duration },
    callId?: string,
  ): CallRecord {
    const id = callId ?? `${this.callIdPrefix}c${this.nextCall++}`;
    const existing = this.calls.get(id);
    if (existing) {
      // A pipeline's step registers its call before it resolves the step's arguments: they come with the second call.
      if (existing.arguments === undefined && context.arguments !== undefined) existing.arguments = argumentsShown(context.arguments);
      return existing;
    }
    const record: CallRecord = {
      callId: id,
      server: context.server,
      tool: context.tool,
      ...(context.step !== undefined ? { step: context.step } : {}),
      ...(context.login !== undefined ? { login: context.login } : {}),
      ...(context.arguments !== undefined ? { arguments: argumentsShown(context.arguments) } : {}),
      expiresInMs: durationOption('elicitation.expiresIn', context.expiresInMs, DEFAULT_EXPIRES_IN_MS),
      holdForMs: durationOption('elicitation.holdFor', context.holdForMs, DEFAULT_HOLD_FOR_MS),
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
    const entry: PendingEntry = { request: stored, callId, since: Date.now() };
    this.pending.set(request.id, entry);
    requestPending(call?.server ?? '', stored.kind);
    if (!deferExpiry) this.expiry.watch(request.id, expiresAtMs);
    this.changed('pending', entry);
    this.notify(entry);
    return stored;
  }

  /**
   * Record all the elicitations of one modern-era (MRTR) round as pending at once (idempotent: a round
   * asked again derives the same ids and finds them pending or answered). Each goes through the seed
   * mapping (form → input, URL → authorization) with the params as the server sent them.
   */
  registerRound(callId: string, round: number, inputRequests: Record<string, { params: ElicitParams }>): RoundRequest[] {
    return recordRound(callId, round, inputRequests, (request) => this.register(request, callId));
  }

  /** The round's answers as the server reads them (key → ElicitResult): expired or cancelled is `cancel`. */
  roundResponses(requests: RoundRequest[]): Record<string, ElicitResult> {
    return roundResponses(requests, (id) => this.answerFor(id));
  }

  /**
   * The worker's config names a webhook (an activity said so, in history): requests recorded from now on are
   * notified. Paths that record requests from an activity's result (not the `elicit` update) call this too.
   */
  enableNotify(): void {
    this.notifyEnabled = true;
  }

  /** Run the `notifyPending` activity for a newly recorded request (versioned: older histories have none). */
  private notify(entry: PendingEntry): void {
    if (!this.notifyEnabled || !patched('durable-mcp:notify-pending')) return;
    const { workflowId, step } = this.inbox();
    // The webhook gets the context it always got: never the call's arguments (a receiver is rarely as private as the history).
    const { arguments: _args, askedAt: _asked, ...context } = this.contextOf(entry, step);
    notifyPending({ workflowId, request: entry.request, context }).catch((err) => {
      if (!isCancellation(err)) log.warn('could not notify of a pending request', { id: entry.request.id, error: String(err) });
    });
  }

  /** A request's expiry timer fired first (or its inline wait reached its expiry): it is resolved as expired. */
  private expire(id: string): void {
    if (!this.pending.has(id)) return;
    log.info('request expired', { id });
    this.resolve({ id, ok: false, reason: 'expired' }, { by: 'expiry' });
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

  /** Where a pending request comes from (the call's server, tool and step; a URL's host). */
  protected contextOf(e: PendingEntry, step?: string): PendingContext {
    const call = this.calls.get(e.callId);
    const context: PendingContext = { callId: e.callId, server: call?.server ?? '', tool: call?.tool ?? '' };
    const s = step ?? call?.step;
    if (s !== undefined) context.step = s;
    if (call?.login !== undefined) context.login = call.login;
    if (e.since !== undefined) context.askedAt = new Date(e.since).toISOString();
    if (call?.arguments !== undefined) context.arguments = call.arguments;
    // URL mode: where the link goes, beside it (the URL was admitted: https:, or http: to a loopback host).
    const host = e.request.kind === 'authorization' ? urlHost(e.request.url) : undefined;
    if (host !== undefined) context.host = host;
    return context;
  }

  /** Validate an answer against the pending request it names, without changing any state. */
  check(raw: unknown): AnswerCheck {
    const id = answerId(raw);
    if (typeof id === 'string') {
      const done = this.resolved.get(id);
      if (done && !this.pending.has(id)) {
        const how = howResolved(done.answer);
        return { ok: false, reason: `request "${id}" is no longer pending: it was already ${how}`, type: how === 'expired' ? 'Expired' : 'AlreadyResolved' };
      }
      const gone = this.finished.find((f) => f.id === id);
      if (gone)
        return {
          ok: false,
          reason: `request "${id}" is no longer pending: it was already ${gone.how}`,
          type: gone.how === 'expired' ? 'Expired' : 'AlreadyResolved',
        };
    }
    return checkAnswer(raw, typeof id === 'string' ? this.pending.get(id)?.request : undefined);
  }

  /** Record the first resolution of a pending request. Later ones are ignored (the checks reject them). */
  resolve(answer: Answer, { answered = false, by = 'workflow' }: { answered?: boolean; by?: string } = {}): boolean {
    const entry = this.pending.get(answer.id);
    if (!entry) return false;
    this.pending.delete(answer.id);
    // A person's answer (not an expiry or a withdrawal) also records how long it took.
    const waited = answered && entry.since !== undefined ? Date.now() - entry.since : undefined;
    requestResolved(this.calls.get(entry.callId)?.server ?? '', entry.request.kind, answer, waited);
    this.resolved.set(answer.id, { answer, callId: entry.callId });
    this.changed('resolved', entry, { answer, by, at: new Date(Date.now()).toISOString() });
    return true;
  }

  /** Finish every call that has a pending request (the workflow is failing or cancelled): their requests are cancelled. */
  protected finishPendingCalls(): void {
    for (const callId of new Set([...this.pending.values()].map((e) => e.callId))) this.finishCall(callId);
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
      this.expiry.forget(id);
      this.finished.push({ id, how: howResolved(r.answer) });
    }
    if (this.finished.length > FINISHED_REMEMBERED) this.finished.splice(0, this.finished.length - FINISHED_REMEMBERED);
  }

  /** The `progressSignal` of a running call's activity: keep its last progress notification. */
  protected recordProgress({ callId, progress, total, message }: { callId: string; progress: number; total?: number; message?: string }): void {
    const call = this.calls.get(callId);
    if (!call || this.finishedCalls.has(callId) || typeof progress !== 'number') return;
    const p: CallProgress = { callId, server: call.server, tool: call.tool, progress };
    if (call.step !== undefined) p.step = call.step;
    if (typeof total === 'number') p.total = total;
    if (typeof message === 'string') p.message = message;
    this.progress.set(callId, p);
  }

  /** The last progress notification of each running call that reported any. */
  protected progressList(): CallProgress[] {
    return [...this.progress.values()];
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

  /** Wait inline (counted) until the request is resolved or released, or `timeoutMs` passes; false on timeout. */
  private async waitInline(id: string, timeoutMs: number): Promise<boolean> {
    this.inlineWaiters++;
    try {
      return await condition(() => this.resolved.has(id) || this.released.has(id), timeoutMs);
    } finally {
      this.inlineWaiters--;
    }
  }

  /**
   * The `elicit` update of a call's activity: the request's answer if it has one; else record it and wait inline
   * (up to the call's holdFor, or its expiry if that comes first) for an answer, or release the call.
   */
  protected async elicit(callId: string, request: Request): Promise<ElicitOutcome> {
    const done = this.resolved.get(request.id);
    if (done) return { status: 'answered', answer: done.answer };
    const id = request.id;
    const stored = this.register(request, callId, { deferExpiry: this.oneTimerInline });
    const expiresAtMs = expiresAtOf(stored);
    const holdForMs = this.calls.get(callId)?.holdForMs ?? DEFAULT_HOLD_FOR_MS;
    if (holdForMs <= 0 || this.inlineWaiters >= MAX_INLINE_WAITERS) {
      this.expiry.watch(id, expiresAtMs);
      return { status: 'released', request: stored };
    }
    // One timer while the call waits inline: the earlier of holdFor and the request's expiry (unless its
    // expiry timer already runs, as for a request asked again after a release).
    const untilExpiry = this.oneTimerInline && !this.expiry.has(id) ? Math.max(0, expiresAtMs - Date.now()) : Infinity;
    const expiryFirst = untilExpiry <= holdForMs;
    const woken = expiryFirst && untilExpiry === 0 ? false : await this.waitInline(id, expiryFirst ? untilExpiry : holdForMs);
    if (this.pending.has(id)) {
      if (expiryFirst && !woken) this.expire(id);
      else this.expiry.watch(id, expiresAtMs);
    }
    const answer = this.resolved.get(id)?.answer;
    return answer ? { status: 'answered', answer } : { status: 'released', request: stored };
  }

  /** The registry's part of the host's snapshot. */
  protected registrySnapshot(): RegistrySnapshot {
    const rounds = this.roundWaiting.snapshot();
    return {
      calls: [...this.calls.values()],
      pending: [...this.pending.values()],
      resolved: [...this.resolved.values()],
      nextCall: this.nextCall,
      ...(this.finished.length > 0 ? { finished: [...this.finished] } : {}),
      ...(rounds ? { rounds } : {}),
    };
  }

  /** Restore the registry's part of a snapshot; the pending requests' expiry timers start again. */
  protected restoreRegistry(s: RegistrySnapshot): void {
    this.nextCall = s.nextCall;
    this.finished = [...(s.finished ?? [])];
    this.roundWaiting.restore(s.rounds ?? []);
    for (const c of s.calls) this.calls.set(c.callId, c);
    for (const r of s.resolved) this.resolved.set(r.answer.id, r);
    for (const e of s.pending) {
      this.pending.set(e.request.id, e);
      this.expiry.watch(e.request.id, expiresAtOf(e.request));
    }
  }
}

function howResolved(answer: Answer): string {
  return answer.ok ? 'accepted' : answer.reason === 'expired' ? 'expired' : answer.reason === 'declined' ? 'declined' : 'cancelled';
}

/** A call's arguments as the memo shows them: JSON, cut to ARGUMENTS_SHOWN characters. */
function argumentsShown(args: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = '(arguments that are not JSON)';
  }
  return cut(text, ARGUMENTS_SHOWN);
}
