/**
 * The elicitation host: durable state of the requests that MCP servers made of a human, inside one workflow.
 * Installed once per workflow (handlers for `answer`, `submitAnswer`, `pending`, `pendingDetails` and the
 * internal `elicit` update). Its parts: the request registry with its inline waits and answer check (registry.ts),
 * the requests' expiry timers (expiry.ts), the modern era's rounds (rounds.ts), the link between a pipeline and
 * its child steps (children.ts), and the wiring of messages (handlers.ts).
 * Deterministic: workflow APIs and the contract only.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { AnswerCheck } from '../../contract/answer.js';
import type { Answer, Request } from '../../contract/index.js';
import {
  awaitingInputKey,
  kindsKey,
  LISTING_MEMO_KEY,
  nextExpiryKey,
  resolvedAtKey,
  serversKey,
  type AnswerBy,
  type PendingRequestDetails,
  type Resolution,
} from '../messages.js';
import { installHandlers, PendingWatch } from './handlers.js';
import { RequestRegistry, type PendingEntry, type RegistrySnapshot, type ResolvedBy } from './registry.js';
import { addResolution, byOf, listingAttributes, listingMemo, resolutionOf } from './visibility.js';
import { ChildLink, type ChildLinkSnapshot } from './children.js';

export { DEFAULT_EXPIRES_IN_MS } from './expiry.js';
export { DEFAULT_HOLD_FOR_MS } from './registry.js';
export type { RoundRequest, RoundWait } from './rounds.js';

/** What the host carries across continue-as-new. */
export interface HostSnapshot extends RegistrySnapshot, ChildLinkSnapshot {
  /** The latest resolutions (the listing memo's history), newest first. */
  recent?: Resolution[];
  /** The worker found the listing's search attributes registered (the next run keeps them current from its start). */
  listing?: true;
}

export class ElicitationHost extends RequestRegistry {
  private readonly children = new ChildLink(
    (resolution) => {
      if (resolution && this.listable()) this.recent = addResolution(this.recent, resolution);
      this.syncVisibility();
    },
    (entry, step) => this.contextOf(entry, step),
  );
  private readonly watch = new PendingWatch(
    (seen) => this.hasUnseen(seen),
    () => this.pendingRequests(),
  );
  /** Updates this run has handled (Temporal allows 2,000 per run): a reason to continue as new. */
  updatesHandled = 0;
  /** A workflow's own refusal of answers the shape check admits (the login refuses "done" for a sign-in: the callback completes it). */
  answerGuard: ((raw: unknown) => AnswerCheck | undefined) | undefined;
  private searchAttributeEnabled: boolean;
  private lastAwaiting: boolean | undefined;
  /** The worker found the listing's search attributes registered (servers, kinds, next expiry, resolved at). */
  private listingAttributesEnabled = false;
  /** What this run last wrote: the memo's JSON and the listing attributes' JSON (written again only when they change). */
  private lastMemo: string | undefined;
  private lastListing: string | undefined;
  private resolvedAt: Date | undefined;
  /** The latest resolutions, newest first (bounded). */
  private recent: Resolution[] = [];

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
      this.children.restore(snapshot);
      this.restoreRegistry(snapshot);
      // Only a run that kept the memo carries these.
      this.recent = [...(snapshot.recent ?? [])];
      this.listingAttributesEnabled = snapshot.listing === true;
    }
    installHandlers({
      check: (raw) => this.check(raw),
      accept: (answer, by) => this.accept(answer, by),
      pendingRequests: () => this.pendingRequests(),
      pendingDetails: () => this.pendingDetails(),
      progress: () => this.progressList(),
      recordProgress: (p) => this.recordProgress(p),
      childPending: (p) => this.children.childPending(p),
      childResolved: (id, resolution) => this.children.childResolved(id, resolution),
      elicit: ({ callId, request, searchAttribute, listing, notify }) => {
        if (searchAttribute) this.enableSearchAttribute(listing);
        if (notify) this.enableNotify();
        return this.elicit(callId, request);
      },
      countUpdate: () => {
        this.updatesHandled++;
      },
      watch: this.watch,
    });
  }

  protected override changed(kind: 'pending' | 'resolved', entry: PendingEntry, resolved?: { answer: Answer } & ResolvedBy): void {
    // How it ended: for this workflow's memo when it is listed, and for the parent a child reports to (which lists it).
    const resolution =
      resolved && (this.children.reportTo || this.listable())
        ? resolutionOf({ request: entry.request, context: this.contextOf(entry) }, resolved.answer, resolved.by, resolved.at)
        : undefined;
    if (resolution && this.listable()) {
      this.recent = addResolution(this.recent, resolution);
      this.resolvedAt = new Date(Date.parse(resolution.at));
    }
    this.syncVisibility();
    this.children.report(kind, entry, resolution);
  }

  protected override inbox(): { workflowId: string; step?: string } {
    return { workflowId: this.children.reportTo?.parent ?? workflowInfo().workflowId, step: this.children.reportTo?.step };
  }

  private hasUnseen(seen: Set<string>): boolean {
    for (const id of this.pending.keys()) if (!seen.has(id)) return true;
    for (const id of this.children.ids()) if (!seen.has(id)) return true;
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
    const checked = this.children.check(raw) ?? super.check(raw);
    return (checked.ok && this.answerGuard?.(checked.answer)) || checked;
  }

  /** Record a checked answer here, or forward it to the child workflow whose request it is. */
  private accept(answer: Answer, by: { sender: AnswerBy | undefined; via: 'signal' | 'update' }): Promise<void> | undefined {
    const forwarding = this.children.forward(answer, by.sender);
    if (forwarding) return forwarding;
    this.resolve(answer, { answered: true, by: byOf(by.sender?.by, by.via) });
    return undefined;
  }

  /** A child finished: its requests are no longer pending here. */
  forgetChild(childWorkflowId: string): void {
    this.children.forgetChild(childWorkflowId);
  }

  /** Report this workflow's requests to a parent (a pipeline), which lists them and routes answers here. */
  reportToParent(parent: string, step?: string, callIdPrefix?: string): void {
    this.children.reportTo = { parent, step };
    // Request ids derive from call ids: a prefix keeps the child's ids apart from the parent's own.
    if (callIdPrefix) this.callIdPrefix = callIdPrefix;
    for (const entry of this.pending.values()) this.children.report('pending', entry);
  }

  /**
   * Withdraw every pending request of this workflow (it is failing or cancelled): its own are cancelled,
   * and its children's are no longer listed here (this run can no longer route answers to them).
   */
  finishAll(): void {
    this.finishPendingCalls();
    this.children.clear();
  }

  /** Pending requests: this workflow's own, then those of its child tool calls. */
  pendingRequests(): Request[] {
    return [...[...this.pending.values()].map((e) => e.request), ...this.children.requests()];
  }

  pendingDetails(): PendingRequestDetails[] {
    return [...[...this.pending.values()].map((e) => ({ request: e.request, context: this.contextOf(e) })), ...this.children.details()];
  }

  hasPending(): boolean {
    return this.pending.size > 0 || this.children.size > 0;
  }

  /**
   * The worker found the search attribute registered (it says so in the `elicit` update or the activity's
   * result, so this is recorded in history and replays): from now on keep it up to date.
   */
  enableSearchAttribute(listing?: boolean): void {
    // A child reporting to its parent is listed through the parent (one inbox), not twice.
    if (this.children.reportTo) return;
    const more = !!listing && !this.listingAttributesEnabled;
    if (this.searchAttributeEnabled && !more) return;
    this.searchAttributeEnabled = true;
    if (more) this.listingAttributesEnabled = true;
    this.syncVisibility();
  }

  /** The workflow is listed through visibility (not through a parent it reports to). */
  private listable(): boolean {
    return this.searchAttributeEnabled && !this.children.reportTo;
  }

  /**
   * Keep visibility current: the memo, the awaiting-input search attribute and the listing's search attributes, each
   * written only when what it holds changed.
   */
  private syncVisibility(): void {
    if (!this.searchAttributeEnabled) return;
    const awaiting = this.hasPending();
    const details = this.pendingDetails();
    const memo = JSON.stringify(listingMemo(details, this.recent));
    if (memo !== this.lastMemo) {
      this.lastMemo = memo;
      upsertMemo({ [LISTING_MEMO_KEY]: JSON.parse(memo) });
    }
    const updates: SearchAttributeUpdatePair[] = [];
    if (awaiting !== this.lastAwaiting) updates.push({ key: awaitingInputKey, value: awaiting });
    if (this.listingAttributesEnabled) {
      const { servers, kinds, nextExpiry } = listingAttributes(details);
      const listing = JSON.stringify([servers, kinds, nextExpiry?.toISOString() ?? null, this.resolvedAt?.toISOString() ?? null]);
      if (listing !== this.lastListing) {
        this.lastListing = listing;
        updates.push(
          { key: serversKey, value: servers },
          { key: kindsKey, value: kinds },
          { key: nextExpiryKey, value: nextExpiry ?? null },
          ...(this.resolvedAt ? [{ key: resolvedAtKey, value: this.resolvedAt }] : []),
        );
      }
    }
    this.lastAwaiting = awaiting;
    if (updates.length > 0) upsertSearchAttributes(updates);
  }

  snapshot(): HostSnapshot {
    const { calls, pending, resolved, nextCall, ...rest } = this.registrySnapshot();
    return {
      calls,
      pending,
      resolved,
      nextCall,
      ...this.children.snapshot(),
      ...rest,
      ...(this.recent.length > 0 ? { recent: this.recent } : {}),
      ...(this.listingAttributesEnabled ? { listing: true as const } : {}),
    };
  }
}

let host: ElicitationHost | undefined;

/** The workflow's elicitation host, installed on first use (once per workflow execution). */
export function useElicitationHost(snapshot?: HostSnapshot): ElicitationHost {
  if (!host) host = new ElicitationHost(snapshot);
  return host;
}
