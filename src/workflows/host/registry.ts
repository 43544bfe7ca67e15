/**
 * The request registry: a workflow's tool calls, their requests (pending, then resolved), the check of an answer
 * against them, and how they ended. What a call waits on between its runs is its gates' (src/gates/call-waits.ts). Pure state: no workflow API (no timer, no
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
import type { PendingContext } from '../messages.js';
import { requestOutcomeOf } from '../../contract/outcome.js';
import { answerId, argumentsShown, DEFAULT_EXPIRES_IN_MS, type CallRecord, type PendingRecord, type ResolvedRecord } from './records.js';
import { requiredAccepts } from '../../gates/approval/accepts.js';
import { callAnswerOf, type CallAnswer } from './answers.js';

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
  private nextCall = 1;
  /** Prefixed to the call ids this registry assigns (a pipeline's child keeps its ids apart from the parent's). */
  private callIdPrefix = '';
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
      ...(context.caller !== undefined ? { caller: context.caller } : {}),
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
    if (call?.caller !== undefined) context.caller = call.caller;
    return context;
  }

  /** N of M (./accepts.ts): how many distinct people must accept this request. */
  requiredAccepts(e: PendingRecord): number {
    return requiredAccepts(e.approval?.approvals, this.calls.get(e.callId)?.requiredApprovals);
  }

  /** A pending request's record (its accepts so far: N of M). */
  pendingRecord(id: string): PendingRecord | undefined {
    return this.pending.get(id);
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
    return checkAnswer(raw, typeof id === 'string' ? this.pending.get(id)?.request : undefined);
  }

  /** The calls that have a pending request. */
  callsWithPending(): string[] {
    return [...new Set([...this.pending.values()].map((e) => e.callId))];
  }

  /** A call ends: the ids of its requests still pending (the host withdraws them). */
  endCall(callId: string): string[] {
    return [...this.pending.values()].filter((e) => e.callId === callId).map((e) => e.request.id);
  }

  /**
   * Drop everything of an ended call (its record, answers), remembering how its requests ended, so what a
   * run carries into continue-as-new is bounded by what is still pending or running. Returns them and who answered.
   */
  forgetCall(callId: string): { dropped: string[]; answers: CallAnswer[] } {
    this.calls.delete(callId);
    const answers: CallAnswer[] = [];
    for (const [id, r] of [...this.resolved]) {
      if (r.callId !== callId) continue;
      answers.push(callAnswerOf(id, r));
      this.resolved.delete(id);
      this.finished.push({ id, how: requestOutcomeOf(r.answer) });
    }
    if (this.finished.length > FINISHED_REMEMBERED) this.finished.splice(0, this.finished.length - FINISHED_REMEMBERED);
    return { dropped: answers.map((a) => a.id), answers };
  }

  /** The id of this run's only call, if it has exactly one (an `mcpToolCall` workflow). */
  soleCallId(): string | undefined {
    return this.calls.size === 1 ? this.calls.keys().next().value : undefined;
  }

  snapshot(): RegistrySnapshot {
    return {
      calls: [...this.calls.values()],
      pending: [...this.pending.values()],
      resolved: [...this.resolved.values()],
      nextCall: this.nextCall,
      ...(this.finished.length > 0 ? { finished: [...this.finished] } : {}),
    };
  }

  /** Restore a snapshot (into a new registry). */
  restore(s: RegistrySnapshot): void {
    this.nextCall = s.nextCall;
    this.finished = [...(s.finished ?? [])];
    for (const c of s.calls) this.calls.set(c.callId, c);
    for (const r of s.resolved) this.resolved.set(r.answer.id, r);
    for (const e of s.pending) this.pending.set(e.request.id, e);
  }
}
