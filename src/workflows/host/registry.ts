/**
 * The request registry: a workflow's tool calls, their requests (pending, then resolved), the calls released to wait
 * for one, the check of an answer against them, and how they ended. Pure state: no workflow API (no timer, no
 * activity, no condition, no marker), so it runs and is tested without a Temporal server (test/workflows/registry.test.ts).
 * What a change means for the outside world (metrics, expiry timers, visibility, the parent, the webhook) is the
 * host's (index.ts), which calls these methods. Deterministic: its clock is the workflow's `Date.now` unless given.
 */
import { urlHost } from '../../contract/admit.js';
import type { ApprovalContext } from '../../contract/approval.js';
import { widenAssignees, type Assignees } from '../../contract/assignees.js';
import { checkAnswer, type AnswerCheck } from '../../contract/answer.js';
import type { Answer, Request } from '../../contract/index.js';
import type { Duration } from '../duration.js';
import { durationOption } from '../input.js';
import type { CallProgress, PendingContext } from '../messages.js';
import { requestOutcomeOf } from '../../contract/outcome.js';
import type { SenderRecord } from './sender.js';
import { answerId, argumentsShown, DEFAULT_EXPIRES_IN_MS, type CallRecord, type PendingRecord, type ResolvedRecord } from './records.js';
import { countAccept, requiredAccepts, sameAnswer } from './accepts.js';
import { callAnswerOf, type CallAnswer } from './answers.js';
import { CallWaits } from './call-waits.js';
import type { RoundWait } from './rounds.js';
import type { TaskWait } from './tasks.js';

/** Default time a tool call holds its MCP session and worker slot while it waits for a human. */
export const DEFAULT_HOLD_FOR_MS = 3 * 60 * 1000;
/** How many finished requests the registry remembers (and carries) to explain a late answer. */
export const FINISHED_REMEMBERED = 32;

/** What the registry carries across continue-as-new (part of the host's snapshot). */
export interface RegistrySnapshot {
  calls: CallRecord[];
  pending: PendingRecord[];
  resolved: ResolvedRecord[];
  nextCall: number;
  /** How the requests of the latest finished calls ended (bounded), to say why a late answer is refused. */
  finished?: Array<{ id: string; how: string }>;
  /** Calls waiting in a modern-era round, with the round's state (the next run resumes them at that round). */
  rounds?: Array<{ callId: string } & RoundWait>;
  /** Calls following an MCP task, with the task's state (the next run goes on watching it). */
  tasks?: Array<{ callId: string } & TaskWait>;
}

/** The options of a new call, as `executeMcpTool` and the pipeline give them. */
export type NewCall = Omit<PendingContext, 'callId' | 'arguments' | 'askedAt'> & {
  arguments?: Record<string, unknown>;
  expiresInMs?: Duration;
  holdForMs?: Duration;
  remindAfterMs?: number;
  escalateAfterMs?: number;
  escalateTo?: Assignees;
  requiredApprovals?: number;
};

export { answerId, cut, DEFAULT_EXPIRES_IN_MS, expiresAtOf } from './records.js';
export type { CallRecord, PendingRecord, ResolvedRecord } from './records.js';

export class RequestRegistry {
  private readonly calls = new Map<string, CallRecord>();
  private readonly pending = new Map<string, PendingRecord>();
  private readonly resolved = new Map<string, ResolvedRecord>();
  /** Requests whose activity gave up waiting inline (its `elicit` update returns `released`). */
  private readonly released = new Set<string>();
  /** Calls released and waiting for an answer (no activity running), by call id → request id. */
  private readonly waiting = new Map<string, string>();
  /** Calls of `waiting` that wait in a modern-era (MRTR) round, with the round's state. */
  private readonly roundWaiting = new CallWaits<RoundWait>();
  /** Calls following an MCP task, between two watches or waiting for its questions' answers. */
  private readonly taskWaiting = new CallWaits<TaskWait>();
  private nextCall = 1;
  /** Prefixed to the call ids this registry assigns (a pipeline's child keeps its ids apart from the parent's). */
  private callIdPrefix = '';
  /** The last progress notification of each running call (not carried across continue-as-new). */
  private readonly progress = new Map<string, CallProgress>();
  private readonly endedCalls = new Set<string>();
  /** How the requests of the latest finished calls ended (at most FINISHED_REMEMBERED). */
  private finished: Array<{ id: string; how: string }> = [];

  /** `now`: the clock (workflow time in a workflow; a test's own clock in a unit test). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Call ids assigned from now on start with `prefix`. */
  prefixCallIds(prefix: string): void {
    this.callIdPrefix = prefix;
  }

  /** Start a tool call: returns its record, with its stable id (assigned here, never by an attempt). */
  newCall(context: NewCall, callId?: string): CallRecord {
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
      ...(context.assignees !== undefined ? { assignees: context.assignees } : {}),
      ...(context.remindAfterMs !== undefined ? { remindAfterMs: context.remindAfterMs } : {}),
      ...(context.escalateAfterMs !== undefined ? { escalateAfterMs: context.escalateAfterMs } : {}),
      ...(context.escalateTo !== undefined ? { escalateTo: context.escalateTo } : {}),
      ...(context.requiredApprovals !== undefined ? { requiredApprovals: context.requiredApprovals } : {}),
      expiresInMs: durationOption('elicitation.expiresIn', context.expiresInMs, DEFAULT_EXPIRES_IN_MS),
      holdForMs: durationOption('elicitation.holdFor', context.holdForMs, DEFAULT_HOLD_FOR_MS),
    };
    this.calls.set(id, record);
    return record;
  }

  call(callId: string): CallRecord | undefined {
    return this.calls.get(callId);
  }

  /** Answers recorded for a call's requests, by request id: handed to every new attempt. */
  recordedFor(callId: string): Record<string, Answer> {
    const out: Record<string, Answer> = {};
    for (const [id, r] of this.resolved) if (r.callId === callId) out[id] = r.answer;
    return out;
  }

  /**
   * Record a request as pending, with its expiry (idempotent). `entry` is set only when it was recorded now: a
   * request already pending returns as recorded then, one already resolved returns as given.
   */
  record(
    request: Request,
    callId: string,
    { expiresInMs: own, approval }: { expiresInMs?: number; approval?: ApprovalContext } = {},
  ): { request: Request; entry?: PendingRecord } {
    const known = this.pending.get(request.id);
    if (known) return { request: known.request };
    if (this.resolved.has(request.id)) return { request };
    const now = this.now();
    const expiresInMs = own ?? this.calls.get(callId)?.expiresInMs ?? DEFAULT_EXPIRES_IN_MS;
    const stored: Request = { ...request, expiresAt: new Date(now + expiresInMs).toISOString() };
    const entry: PendingRecord = { request: stored, callId, since: now, ...(approval ? { approval } : {}) };
    this.pending.set(request.id, entry);
    return { request: stored, entry };
  }

  /** Record the first resolution of a pending request: returns its entry, or undefined if it was not pending. */
  resolve(answer: Answer, who: { by?: string; at?: string; source?: string; claimed?: string; assurance?: string } = {}): PendingRecord | undefined {
    const entry = this.pending.get(answer.id);
    if (!entry) return undefined;
    this.pending.delete(answer.id);
    this.resolved.set(answer.id, {
      answer,
      callId: entry.callId,
      ...(who.by !== undefined ? { by: who.by } : {}),
      ...(who.at !== undefined ? { at: who.at } : {}),
      ...(who.source !== undefined ? { source: who.source } : {}),
      ...(who.claimed !== undefined ? { claimed: who.claimed } : {}),
      ...(who.assurance !== undefined ? { assurance: who.assurance } : {}),
    });
    return entry;
  }

  /** The resolution of a request: its answer, who gave it and when. */
  resolutionOf(id: string): ResolvedRecord | undefined {
    return this.resolved.get(id);
  }

  /** The activity gave up waiting inline for the request (its `elicit` update returns `released`). */
  markReleased(id: string): void {
    this.released.add(id);
  }

  isReleased(id: string): boolean {
    return this.released.has(id);
  }

  isPending(id: string): boolean {
    return this.pending.has(id);
  }

  isResolved(id: string): boolean {
    return this.resolved.has(id);
  }

  answerFor(id: string): Answer | undefined {
    return this.resolved.get(id)?.answer;
  }

  /** The pending requests, in the order they were recorded. */
  pendingRecords(): PendingRecord[] {
    return [...this.pending.values()];
  }

  /** Where a pending request comes from (the call's server, tool and step; a URL's host). */
  contextOf(e: PendingRecord, step?: string): PendingContext {
    const call = this.calls.get(e.callId);
    const context: PendingContext = { callId: e.callId, server: call?.server ?? '', tool: call?.tool ?? '' };
    const s = step ?? call?.step;
    if (s !== undefined) context.step = s;
    if (call?.login !== undefined) context.login = call.login;
    if (e.since !== undefined) context.askedAt = new Date(e.since).toISOString();
    if (call?.arguments !== undefined) context.arguments = call.arguments;
    if (e.approval !== undefined) context.approval = e.approval;
    // An approval goes to the policy's assignees when it names them, else to the call's.
    // An escalation widens them.
    const assignees = widenAssignees(e.approval?.assignees ?? call?.assignees, e.escalated);
    if (assignees !== undefined) context.assignees = assignees;
    if (e.reminded) context.reminded = true;
    const required = this.requiredAccepts(e);
    if (required > 1) context.approvals = { required, accepted: e.accepts?.by ?? [] };
    if (e.escalated) context.escalated = e.escalated;
    // URL mode: where the link goes, beside it (the URL was admitted: https:, or http: to a loopback host).
    const host = e.request.kind === 'authorization' ? urlHost(e.request.url) : undefined;
    if (host !== undefined) context.host = host;
    return context;
  }

  /** N of M (./accepts.ts): how many distinct people must accept this request. */
  requiredAccepts(e: PendingRecord): number {
    return requiredAccepts(e.approval?.approvals, this.calls.get(e.callId)?.requiredApprovals);
  }

  /** N of M: count an accept of `who`; true while more people must accept (else resolve it, as by `acceptedBy`). */
  countAccept(answer: Answer, who: string, person: string, sender?: SenderRecord): boolean {
    const e = this.pending.get(answer.id);
    return e !== undefined && countAccept(e, this.requiredAccepts(e), answer, who, person, sender);
  }

  /** N of M: the weakest record of who accepted so far (./sender.ts `weaker`). */
  weakestAccept(id: string): SenderRecord | undefined {
    return this.pending.get(id)?.accepts?.weakest;
  }

  /** N of M: who accepted a pending request so far. */
  acceptedBy(id: string): string[] {
    return this.pending.get(id)?.accepts?.by ?? [];
  }

  /** Validate an answer against the pending request it names, without changing any state. */
  check(raw: unknown): AnswerCheck {
    const id = answerId(raw);
    if (typeof id === 'string') {
      const done = this.resolved.get(id);
      const how = done && !this.pending.has(id) ? requestOutcomeOf(done.answer) : this.finished.find((f) => f.id === id)?.how;
      if (how !== undefined) {
        return { ok: false, reason: `request "${id}" is no longer pending: it was already ${how}`, type: how === 'expired' ? 'Expired' : 'AlreadyResolved' };
      }
    }
    const entry = typeof id === 'string' ? this.pending.get(id) : undefined;
    // N of M: every accept must give the same answer as the first.
    return sameAnswer(entry, checkAnswer(raw, entry?.request));
  }

  /** The calls that have a pending request. */
  callsWithPending(): string[] {
    return [...new Set([...this.pending.values()].map((e) => e.callId))];
  }

  /** A call ends: it reports no more progress. Returns the ids of its requests still pending (the host withdraws them). */
  endCall(callId: string): string[] {
    this.progress.delete(callId);
    this.endedCalls.add(callId);
    return [...this.pending.values()].filter((e) => e.callId === callId).map((e) => e.request.id);
  }

  /**
   * Drop everything of an ended call (its record, answers, waits), remembering how its requests ended, so what a
   * run carries into continue-as-new is bounded by what is still pending or running. Returns them and who answered.
   */
  forgetCall(callId: string): { dropped: string[]; answers: CallAnswer[] } {
    this.calls.delete(callId);
    this.waiting.delete(callId);
    this.roundWaiting.delete(callId);
    this.taskWaiting.delete(callId);
    const answers: CallAnswer[] = [];
    for (const [id, r] of [...this.resolved]) {
      if (r.callId !== callId) continue;
      answers.push(callAnswerOf(id, r));
      this.resolved.delete(id);
      this.released.delete(id);
      this.finished.push({ id, how: requestOutcomeOf(r.answer) });
    }
    if (this.finished.length > FINISHED_REMEMBERED) this.finished.splice(0, this.finished.length - FINISHED_REMEMBERED);
    return { dropped: answers.map((a) => a.id), answers };
  }

  /** The `progress` signal of a running call's activity: keep its last progress notification. */
  recordProgress({ callId, progress, total, message }: { callId: string; progress: number; total?: number; message?: string }): void {
    const call = this.calls.get(callId);
    if (!call || this.endedCalls.has(callId) || typeof progress !== 'number') return;
    const p: CallProgress = { callId, server: call.server, tool: call.tool, progress };
    if (call.step !== undefined) p.step = call.step;
    if (typeof total === 'number') p.total = total;
    if (typeof message === 'string') p.message = message;
    this.progress.set(callId, p);
  }

  /** The last progress notification of each running call that reported any. */
  progressList(): CallProgress[] {
    return [...this.progress.values()];
  }

  /**
   * Mark a call as released and waiting for `requestId` (no activity runs for it meanwhile), or no longer waiting
   * (undefined). `round`: it waits in a modern-era (MRTR) round, whose state is carried across continue-as-new.
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

  /**
   * Mark a call that follows an MCP task as waiting (between two watches, or for its questions' answers: no activity
   * runs for it), with the task's state, carried across continue-as-new; or no longer waiting (undefined).
   */
  setTaskWaiting(callId: string, wait: TaskWait | undefined): void {
    if (wait) this.taskWaiting.set(callId, wait);
    else this.taskWaiting.delete(callId);
  }

  /** The task a call follows, while it waits (restored after continue-as-new: the call goes on watching it). */
  taskWaitOf(callId: string): TaskWait | undefined {
    return this.taskWaiting.get(callId);
  }

  /** Whether a call waits with no activity running: released for a request, or between the watches of its task. */
  isWaiting(callId: string): boolean {
    return this.waiting.has(callId) || this.taskWaiting.has(callId);
  }

  /** The request a released call waits for, if it waits. */
  waitingFor(callId: string): string | undefined {
    return this.waiting.get(callId);
  }

  /** The id of this run's only call, if it has exactly one (an `mcpToolCall` workflow). */
  soleCallId(): string | undefined {
    return this.calls.size === 1 ? this.calls.keys().next().value : undefined;
  }

  snapshot(): RegistrySnapshot {
    const rounds = this.roundWaiting.snapshot();
    const tasks = this.taskWaiting.snapshot();
    return {
      calls: [...this.calls.values()],
      pending: [...this.pending.values()],
      resolved: [...this.resolved.values()],
      nextCall: this.nextCall,
      ...(this.finished.length > 0 ? { finished: [...this.finished] } : {}),
      ...(rounds ? { rounds } : {}),
      ...(tasks ? { tasks } : {}),
    };
  }

  /** Restore a snapshot (into a new registry). */
  restore(s: RegistrySnapshot): void {
    this.nextCall = s.nextCall;
    this.finished = [...(s.finished ?? [])];
    this.roundWaiting.restore(s.rounds ?? []);
    this.taskWaiting.restore(s.tasks ?? []);
    for (const c of s.calls) this.calls.set(c.callId, c);
    for (const r of s.resolved) this.resolved.set(r.answer.id, r);
    for (const e of s.pending) this.pending.set(e.request.id, e);
  }
}
