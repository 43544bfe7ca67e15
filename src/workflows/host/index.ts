/**
 * The elicitation host: durable state of the requests that MCP servers made of a human, inside one workflow.
 * Installed once per workflow (handlers for `answer`, `submitAnswer`, `pending`, `pendingDetails` and the
 * internal `elicit` update). Its parts: the request registry with its timers and answer check (registry.ts),
 * the relay between a pipeline and its child steps (relay.ts), and the wiring of messages (handlers.ts).
 * Deterministic: workflow APIs and the contract only.
 */
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { AnswerCheck } from '../../contract/answer.js';
import type { Answer, Request } from '../../contract/index.js';
import { awaitingInputKey, type PendingRequestDetails } from '../messages.js';
import { installHandlers, PendingWatch } from './handlers.js';
import { RequestRegistry, type PendingEntry, type RegistrySnapshot } from './registry.js';
import { ChildRelay, type RelaySnapshot } from './relay.js';

export { MAX_DURATION_MS } from '../duration.js';
export { MAX_WATCH_MS } from '../input.js';
export { DEFAULT_WATCH_MS, MAX_PENDING_WATCHERS } from './handlers.js';
export { DEFAULT_EXPIRES_IN_MS, DEFAULT_HOLD_FOR_MS, FINISHED_REMEMBERED, MAX_INLINE_WAITERS, type CallRecord, type RoundRequest, type RoundWait } from './registry.js';

/** What the host carries across continue-as-new. */
export interface HostSnapshot extends RegistrySnapshot, RelaySnapshot {}

export class ElicitationHost extends RequestRegistry {
  private readonly relay = new ChildRelay(
    () => this.syncSearchAttribute(),
    (entry, step) => this.contextOf(entry, step),
  );
  private readonly watch = new PendingWatch(
    (seen) => this.hasUnseen(seen),
    () => this.pendingRequests(),
  );
  /** Updates this run has handled (Temporal allows 2,000 per run): a reason to continue as new. */
  updatesHandled = 0;
  private searchAttributeEnabled: boolean;
  private lastAwaiting: boolean | undefined;

  constructor(snapshot?: HostSnapshot) {
    super();
    let registered = false;
    try {
      registered = workflowInfo().typedSearchAttributes.get(awaitingInputKey) !== undefined;
    } catch {
      registered = false;
    }
    this.searchAttributeEnabled = registered;
    if (snapshot) {
      this.relay.restore(snapshot);
      this.restoreRegistry(snapshot);
    }
    installHandlers({
      check: (raw) => this.check(raw),
      accept: (answer) => this.accept(answer),
      pendingRequests: () => this.pendingRequests(),
      pendingDetails: () => this.pendingDetails(),
      progress: () => this.progressList(),
      recordProgress: (p) => this.recordProgress(p),
      childPending: (p) => this.relay.childPending(p),
      childResolved: (id) => this.relay.childResolved(id),
      elicit: ({ callId, request, searchAttribute, notify }) => {
        if (searchAttribute) this.enableSearchAttribute();
        if (notify) this.enableNotify();
        return this.elicit(callId, request);
      },
      countUpdate: () => {
        this.updatesHandled++;
      },
      watch: this.watch,
    });
  }

  protected override changed(kind: 'pending' | 'resolved', entry: PendingEntry): void {
    this.syncSearchAttribute();
    this.relay.report(kind, entry);
  }

  protected override inbox(): { workflowId: string; step?: string } {
    return { workflowId: this.relay.reportTo?.parent ?? workflowInfo().workflowId, step: this.relay.reportTo?.step };
  }

  private hasUnseen(seen: Set<string>): boolean {
    for (const id of this.pending.keys()) if (!seen.has(id)) return true;
    for (const id of this.relay.ids()) if (!seen.has(id)) return true;
    return false;
  }

  /** The run is about to finish: callers waiting in `waitForPending` get their answer now, not at their timeout. */
  close(): void {
    this.watch.closing = true;
  }

  /** The run goes on after all (a continue-as-new that did not happen): watchers wait again. */
  reopen(): void {
    this.watch.closing = false;
  }

  /** Validate an answer against the pending request it names (this workflow's or a child's), without changing any state. */
  override check(raw: unknown): AnswerCheck {
    return this.relay.check(raw) ?? super.check(raw);
  }

  /** Record a checked answer here, or forward it to the child workflow whose request it is. */
  private accept(answer: Answer): Promise<void> | undefined {
    const forwarding = this.relay.forward(answer);
    if (forwarding) return forwarding;
    this.resolve(answer, { answered: true });
    return undefined;
  }

  /** A child finished: its requests are no longer pending here. */
  forgetChild(childWorkflowId: string): void {
    this.relay.forgetChild(childWorkflowId);
  }

  /** Report this workflow's requests to a parent (a pipeline), which lists them and routes answers here. */
  reportToParent(parent: string, step?: string, callIdPrefix?: string): void {
    this.relay.reportTo = { parent, step };
    // Request ids derive from call ids: a prefix keeps the child's ids apart from the parent's own.
    if (callIdPrefix) this.callIdPrefix = callIdPrefix;
    for (const entry of this.pending.values()) this.relay.report('pending', entry);
  }

  /**
   * Withdraw every pending request of this workflow (it is failing or cancelled): its own are cancelled,
   * and its children's are no longer listed here (this run can no longer route answers to them).
   */
  finishAll(): void {
    this.finishPendingCalls();
    this.relay.clear();
  }

  /** Pending requests: this workflow's own, then those of its child tool calls. */
  pendingRequests(): Request[] {
    return [...[...this.pending.values()].map((e) => e.request), ...this.relay.requests()];
  }

  pendingDetails(): PendingRequestDetails[] {
    return [...[...this.pending.values()].map((e) => ({ request: e.request, context: this.contextOf(e) })), ...this.relay.details()];
  }

  hasPending(): boolean {
    return this.pending.size > 0 || this.relay.size > 0;
  }

  /**
   * The worker found the search attribute registered (it says so in the `elicit` update or the activity's
   * result, so this is recorded in history and replays): from now on keep it up to date.
   */
  enableSearchAttribute(): void {
    // A child reporting to its parent is listed through the parent (one inbox), not twice.
    if (this.searchAttributeEnabled || this.relay.reportTo) return;
    this.searchAttributeEnabled = true;
    this.syncSearchAttribute();
  }

  private syncSearchAttribute(): void {
    if (!this.searchAttributeEnabled) return;
    const awaiting = this.hasPending();
    if (awaiting === this.lastAwaiting) return;
    this.lastAwaiting = awaiting;
    upsertSearchAttributes([{ key: awaitingInputKey, value: awaiting }]);
  }

  snapshot(): HostSnapshot {
    const { calls, pending, resolved, nextCall, ...rest } = this.registrySnapshot();
    return { calls, pending, resolved, nextCall, ...this.relay.snapshot(), ...rest };
  }
}

let host: ElicitationHost | undefined;

/** The workflow's elicitation host, installed on first use (once per workflow execution). */
export function useElicitationHost(snapshot?: HostSnapshot): ElicitationHost {
  if (!host) host = new ElicitationHost(snapshot);
  return host;
}
