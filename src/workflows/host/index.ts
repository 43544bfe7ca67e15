/**
 * The elicitation host: durable state of the requests that MCP servers made of a human, inside one workflow, by
 * composition (the style of temporalio/samples-typescript `message-passing/safe-message-handlers`). Its parts:
 * - `requests` (registry.ts): the calls and their requests, pure state (no workflow API);
 * - `waits` (src/gates/call-waits.ts): what each call waits on between the runs of its activity, its gates' state;
 * - `expiry` (expiry.ts): a timer per pending request;
 * - `children` (children.ts): the link between a pipeline and its child steps (one inbox);
 * - `visibility` (visibility.ts): the memo and the search attributes;
 * - `watch` (watch.ts): the callers of `waitForPending`, answered at once while the run finishes;
 * - `progress` (progress.ts): the last progress of each running call;
 * and, here, what a change means in workflow terms: metrics, reminders and escalations, the `notifyPending`
 * activity. The question gate's inline wait (`elicit`) is src/gates/question/workflow.ts. Its handlers (handlers.ts)
 * are installed once, with the host, and call its public methods. Install it with `installElicitationHost(snapshot)`
 * (install.ts) at the start of a workflow that carries one across continue-as-new; `useElicitationHost()` gives it
 * (installing an empty one on first use).
 * Deterministic: workflow APIs and the contract only.
 */
import { condition, isCancellation, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { countAccept, sameAnswer } from '../../gates/approval/accepts.js';
import { CallWaits, type CallWaitsSnapshot } from '../../gates/call-waits.js';
import type { AnswerCheck } from '../../contract/answer.js';
import type { ApprovalContext } from '../../contract/approval.js';
import type { Answer, Request } from '../../contract/index.js';
import { requestPending, requestResolved } from '../../telemetry/workflow-metrics.js';
import type { AnswerBy, PendingRequest } from '../messages.js';
import { ChildLink, type ChildLinkSnapshot } from './children.js';
import { ExpiryTimers } from './expiry.js';
import { CallProgressBoard } from './progress.js';
import { PendingWatch, RunState } from './watch.js';
import type { CallAnswer } from './answers.js';
import { expiresAtOf, RequestRegistry, type PendingRecord, type RegistrySnapshot } from './registry.js';
import { byOf, resolutionOf, Visibility, type VisibilitySnapshot } from './visibility.js';
import { answerProved } from './proof.js';
import { recordOf, weaker, type SenderRecord } from './sender.js';
import { since, Versions } from '../versions.js';
import type { WorkerFeatures } from '../../contract/activities.js';
import type { DurableMcpActivities } from '../../contract/activities.js';

export { DEFAULT_EXPIRES_IN_MS, DEFAULT_HOLD_FOR_MS } from './registry.js';
export type { CallAnswer } from './answers.js';

/** What the host carries across continue-as-new. */
export interface HostSnapshot extends RegistrySnapshot, ChildLinkSnapshot, CallWaitsSnapshot, VisibilitySnapshot {}

/**
 * Notifications of new pending requests: an activity, durable and retried with backoff, never awaited (a
 * failing webhook never fails or delays the tool call). Scheduled once per request, when it is recorded.
 */
const { notifyPending } = proxyActivities<DurableMcpActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 15 },
});

export class ElicitationHost {
  /** This workflow's calls and requests (pure state). */
  readonly requests = new RequestRegistry();
  /** The last progress each running call reported (the `progress` query). */
  readonly progress = new CallProgressBoard();
  /** What each call waits on between the runs of its activity (its gates' state, pure). */
  readonly waits = new CallWaits();
  /** The requests of child workflows (a pipeline's), and the parent this workflow reports to (a child's). */
  readonly children = new ChildLink(
    (resolution) => {
      if (resolution && this.listed()) this.visibility.addResolution(resolution);
      this.visibility.write(this.pendingDetails());
    },
    (entry, step) => this.requests.contextOf(entry, step),
  );
  /** A timer per pending request (the question gate defers it while it waits inline). */
  readonly expiry = new ExpiryTimers(
    (id) => this.requests.isPending(id),
    (id) => this.expire(id),
  );
  private readonly visibility: Visibility;
  readonly watch = new PendingWatch(
    (seen) => this.hasUnseen(seen),
    () => this.pendingRequests(),
  );
  /** The worker's config names a webhook (it says so in the `elicit` update or the activity's result, so this replays). */
  private notifyEnabled = false;
  /** Updates this run has handled (Temporal allows 2,000 per run): a reason to continue as new. */
  updatesHandled = 0;
  /** A workflow's own refusal of answers the shape check admits (the login refuses "done" for a sign-in: the callback completes it). */
  answerGuard: ((raw: unknown) => AnswerCheck | undefined) | undefined;

  constructor(snapshot?: HostSnapshot) {
    this.visibility = new Visibility(snapshot);
    if (snapshot) {
      this.children.restore(snapshot);
      this.requests.restore(snapshot);
      this.waits.restore(snapshot);
      for (const e of snapshot.pending) this.expiry.watch(e.request.id, expiresAtOf(e.request));
      for (const e of this.requests.pendingRecords()) this.followUp(e);
    }
  }

  // ---- requests: recorded, resolved, expired, withdrawn ----

  /**
   * Record a request as pending (idempotent). Starts its expiry timer, unless `deferExpiry` (an inline wait that
   * keeps the deadline itself and starts the expiry timer when it ends unanswered).
   */
  register(
    request: Request,
    callId: string,
    { deferExpiry = false, ...own }: { deferExpiry?: boolean; expiresInMs?: number; approval?: ApprovalContext } = {},
  ): Request {
    const { request: stored, entry } = this.requests.record(request, callId, own);
    if (!entry) return stored;
    requestPending(this.requests.call(callId)?.server ?? '', stored.kind);
    if (!deferExpiry) this.expiry.watch(stored.id, expiresAtOf(stored));
    this.changed('pending', entry);
    this.notify(entry);
    this.followUp(entry);
    return stored;
  }

  /**
   * Record the first resolution of a pending request. Later ones are ignored (the checks reject them). `sender`: what the
   * worker records of who answered (./sender.ts), for a person's answer.
   */
  resolve(answer: Answer, { answered = false, by = 'workflow', sender }: { answered?: boolean; by?: string; sender?: SenderRecord } = {}): boolean {
    const at = new Date(Date.now()).toISOString();
    const entry = this.requests.resolve(answer, { by, at, ...sender });
    if (!entry) return false;
    // A person's answer (not an expiry or a withdrawal) also records how long it took.
    const waited = answered && entry.since !== undefined ? Date.now() - entry.since : undefined;
    requestResolved(this.requests.call(entry.callId)?.server ?? '', entry.request.kind, answer, waited);
    this.changed('resolved', entry, { answer, by, at, ...(sender ? { sender } : {}) });
    return true;
  }

  /**
   * A call finished: requests it no longer asks are withdrawn (cancelled), and the registry forgets the call. Returns
   * who answered its requests (its result's `metadata.answers`).
   */
  finishCall(callId: string): CallAnswer[] {
    this.progress.end(callId);
    for (const id of this.requests.endCall(callId)) this.resolve({ id, ok: false, reason: 'cancelled' });
    const { dropped, answers } = this.requests.forgetCall(callId);
    this.waits.forget(callId, dropped);
    for (const id of dropped) this.expiry.forget(id);
    return answers;
  }

  /**
   * Withdraw every pending request of this workflow (it is failing or cancelled): its own are cancelled, and its
   * children's are no longer listed here (this run can no longer route answers to them).
   */
  finishAll(): void {
    for (const callId of this.requests.callsWithPending()) this.finishCall(callId);
    this.children.clear();
  }

  /** A request's expiry timer fired first (or its inline wait reached its expiry): it is resolved as expired. */
  expire(id: string): void {
    if (!this.requests.isPending(id)) return;
    log.info('request expired', { id });
    this.resolve({ id, ok: false, reason: 'expired' }, { by: 'expiry' });
  }

  // ---- the messages (handlers.ts calls these) ----

  /** Validate an answer against the pending request it names (this workflow's or a child's), without changing any state. */
  check(raw: unknown): AnswerCheck {
    const checked = this.children.check(raw) ?? this.ownCheck(raw);
    return (checked.ok && this.answerGuard?.(checked.answer)) || checked;
  }

  /**
   * Record a checked answer here, or forward it to the child workflow whose request it is (with its proof: the child
   * checks it). `proved`: the worker checked the sender's proof (./sender.ts); else a source stronger than `cli` is
   * recorded as claimed. A claimed sender is counted (N of M) by its `person` or `by`, as the CLI's is.
   */
  accept(answer: Answer, by: { sender: AnswerBy | undefined; via: 'signal' | 'update'; proved?: boolean }): Promise<void> | undefined {
    const forwarding = this.children.forward(answer, by.sender);
    if (forwarding) return forwarding;
    const who = byOf(by.sender?.by, by.via);
    const sender = recordOf(by.sender, by.proved === true);
    // N of M (the approval gate's count, src/gates/approval/accepts.ts): an accept is counted; the request is taken
    // once enough distinct people accepted.
    const entry = this.requests.pendingRecord(answer.id);
    if (entry && countAccept(entry, this.requests.requiredAccepts(entry), answer, who, by.sender?.person ?? who, sender)) {
      this.visibility.write(this.pendingDetails());
      return undefined;
    }
    const accepted = entry?.accepts?.by ?? [];
    // Several people: the record is as strong as the weakest of their accepts.
    const several = answer.ok && accepted.length > 1;
    const record = several ? weaker(entry?.accepts?.weakest, sender) : sender;
    this.resolve(answer, { answered: true, by: several ? cutBy(accepted.join(', ')) : who, sender: record });
    return undefined;
  }

  /** Whether the sender's proof is the inbox's for this answer (./proof.ts); undefined: no check. */
  proved(raw: unknown, sender: AnswerBy | undefined): Promise<boolean> | undefined {
    return answerProved(raw, sender, { ownedByChild: (id) => this.children.owns(id), parent: this.children.reportTo?.parent });
  }

  /** Pending requests: this workflow's own, then those of its child tool calls. */
  pendingRequests(): Request[] {
    return [...this.requests.pendingRecords().map((e) => e.request), ...this.children.requests()];
  }

  pendingDetails(): PendingRequest[] {
    return [...this.requests.pendingRecords().map((e) => ({ request: e.request, context: this.requests.contextOf(e) })), ...this.children.details()];
  }

  // ---- what the worker says, and the parent ----

  /**
   * What the worker says of itself (in the `elicit` update, the activity's result or the `loginWanted` update, so this
   * is recorded in history and replays): a registered search attribute turns visibility on, a webhook notifications.
   */
  useWorkerFeatures(features: WorkerFeatures): void {
    // A child reporting to its parent is listed through the parent (one inbox), not twice.
    if (features.searchAttribute && !this.children.reportTo && this.visibility.enable(features.listing)) this.visibility.write(this.pendingDetails());
    // Requests recorded from now on are notified.
    if (features.notify) this.notifyEnabled = true;
  }

  /** Report this workflow's requests to a parent (a pipeline), which lists them and routes answers here. */
  reportToParent(parent: string, step?: string, callIdPrefix?: string): void {
    this.children.reportTo = { parent, step };
    // Request ids derive from call ids: a prefix keeps the child's ids apart from the parent's own.
    if (callIdPrefix) this.requests.prefixCallIds(callIdPrefix);
    for (const entry of this.requests.pendingRecords()) this.children.report('pending', entry);
  }

  // ---- the run finishing ----

  /** The run is finishing: callers waiting in `waitForPending` get their answer now, not at their timeout. */
  answerWatchersNow(): void {
    this.watch.state = RunState.Finishing;
  }

  /** The run goes on after all (a continue-as-new that did not happen): callers of `waitForPending` wait again. */
  letWatchersWait(): void {
    this.watch.state = RunState.Running;
  }

  snapshot(): HostSnapshot {
    const { calls, pending, resolved, nextCall, ...rest } = this.requests.snapshot();
    return { calls, pending, resolved, nextCall, ...this.children.snapshot(), ...rest, ...this.waits.snapshot(), ...this.visibility.snapshot() };
  }

  // ---- private ----

  /** This workflow's own check of an answer: the request's, and N of M's (every accept gives the first accept's answer). */
  private ownCheck(raw: unknown): AnswerCheck {
    const checked = this.requests.check(raw);
    return checked.ok ? sameAnswer(this.requests.pendingRecord(checked.answer.id), checked) : checked;
  }

  /** A request was recorded as pending, or resolved: visibility is written again and the parent told. */
  private changed(kind: 'pending' | 'resolved', entry: PendingRecord, resolved?: { answer: Answer; by: string; at: string; sender?: SenderRecord }): void {
    // How it ended: for this workflow's memo when it is listed, and for the parent a child reports to (which lists it).
    const resolution =
      resolved && (this.children.reportTo || this.listed())
        ? resolutionOf({ request: entry.request, context: this.requests.contextOf(entry) }, resolved.answer, resolved.by, resolved.at, resolved.sender)
        : undefined;
    if (resolution && this.listed()) this.visibility.addResolution(resolution, { resolvedAt: true });
    this.visibility.write(this.pendingDetails());
    this.children.report(kind, entry, resolution);
  }

  /** The workflow is listed through visibility (not through a parent it reports to). */
  private listed(): boolean {
    return this.visibility.enabled && !this.children.reportTo;
  }

  /**
   * Reminders and escalation (docs/people.md): a timer per follow-up of a request whose call asks for them, from when it
   * was recorded (carried across continue-as-new: a follow-up already done is not done again). A reminder notifies the
   * assignees again; an escalation adds the call's `escalateTo` to them, lists the request again and notifies.
   */
  private followUp(entry: PendingRecord): void {
    // An approval follows its policy's reminders and escalation when the policy names them, else the call's.
    const call = entry.approval?.followUps ?? this.requests.call(entry.callId);
    if (!call || (call.remindAfterMs === undefined && call.escalateAfterMs === undefined)) return;
    if (!since(Versions.followUps)) return;
    const id = entry.request.id;
    const from = entry.since ?? Date.now();
    const after = (ms: number, fire: () => void) =>
      void (async () => {
        try {
          if (!(await condition(() => !this.requests.isPending(id), Math.max(1, from + ms - Date.now())))) fire();
        } catch (err) {
          if (!isCancellation(err)) throw err;
        }
      })();
    if (call.remindAfterMs !== undefined && !entry.reminded)
      after(call.remindAfterMs, () => {
        log.info('request reminder', { id });
        entry.reminded = true;
        this.visibility.write(this.pendingDetails());
        this.notify(entry, 'reminder');
      });
    if (call.escalateAfterMs !== undefined && call.escalateTo && !entry.escalated) {
      const to = call.escalateTo;
      after(call.escalateAfterMs, () => {
        log.info('request escalated', { id });
        entry.escalated = to;
        this.visibility.write(this.pendingDetails());
        this.children.report('pending', entry);
        this.notify(entry, 'escalation');
      });
    }
  }

  /** Run the `notifyPending` activity for a newly recorded request (the webhook's receiver learns of it), or a follow-up. */
  private notify(entry: PendingRecord, event?: 'reminder' | 'escalation'): void {
    if (!this.notifyEnabled) return;
    const info = workflowInfo();
    const workflowId = this.children.reportTo?.parent ?? info.workflowId;
    const runId = this.children.reportTo ? info.parent?.runId : info.firstExecutionRunId;
    // The webhook gets the context it always got: never the call's arguments (a receiver is rarely as private as the history).
    const { arguments: _args, askedAt: _asked, ...context } = this.requests.contextOf(entry, this.children.reportTo?.step);
    // An approval's form holds the argument values (its defaults): a notification never carries them.
    const { data: _form, ...bare } = entry.request;
    notifyPending({ workflowId, ...(runId ? { runId } : {}), request: entry.approval ? bare : entry.request, context, ...(event ? { event } : {}) }).catch(
      (err) => {
        if (!isCancellation(err)) log.warn('could not notify of a pending request', { id: entry.request.id, error: String(err) });
      },
    );
  }

  private hasUnseen(seen: Set<string>): boolean {
    for (const e of this.requests.pendingRecords()) if (!seen.has(e.request.id)) return true;
    for (const id of this.children.ids()) if (!seen.has(id)) return true;
    return false;
  }
}

/** Several people, as one `by` (at most 200 characters, as every `by`). */
function cutBy(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`;
}
