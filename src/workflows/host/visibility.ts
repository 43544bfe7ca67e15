/**
 * What a workflow shows visibility (docs/inbox-at-scale.md), and its writing: the memo (the pending requests with their context,
 * bounded, and the latest resolutions), the awaiting-input search attribute and the listing's search attributes
 * (servers, kinds, next expiry, resolved at). The functions are pure; `Visibility` writes them with `upsertMemo` and
 * `upsertSearchAttributes`, each only when what it holds changed. Deterministic: workflow APIs only.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Answer } from '../../contract/index.js';
import { type PendingRequest } from '../messages.js';
import {
  awaitingInputKey,
  kindsKey,
  LISTING_MEMO_KEY,
  MEMO_LIMITS,
  nextExpiryKey,
  resolvedAtKey,
  serversKey,
  type ListingMemo,
  type Resolution,
} from '../visibility.js';
import { requestOutcomeOf } from '../../contract/outcome.js';
import { cut } from './registry.js';

/** What visibility carries across continue-as-new (part of the host's snapshot). */
export interface VisibilitySnapshot {
  /** The latest resolutions (the listing memo's history), newest first. */
  recent?: Resolution[];
  /** The worker found the listing's search attributes registered (the next run keeps them current from its start). */
  listing?: true;
}

/**
 * The writer of a workflow's memo and search attributes. Off until the worker says the awaiting-input search
 * attribute is registered (or the workflow started with it), since upserting an unregistered one fails the task.
 */
export class Visibility {
  /** The awaiting-input search attribute is registered: keep the memo and the attributes current. */
  private on: boolean;
  /** The listing's search attributes are registered too (servers, kinds, next expiry, resolved at). */
  private listingAttributes: boolean;
  /** The latest resolutions, newest first (bounded). */
  private recent: Resolution[];
  private resolvedAt: Date | undefined;
  /** What this run last wrote: the awaiting flag, the memo's JSON and the listing attributes' JSON. */
  private lastAwaiting: boolean | undefined;
  private lastMemo: string | undefined;
  private lastListing: string | undefined;

  constructor(snapshot?: VisibilitySnapshot) {
    this.on = startedWithSearchAttribute();
    this.recent = [...(snapshot?.recent ?? [])];
    this.listingAttributes = snapshot?.listing === true;
  }

  get enabled(): boolean {
    return this.on;
  }

  /** The worker found the search attribute registered (and the listing's, if `listing`): true if that is news. */
  enable(listing?: boolean): boolean {
    const more = !!listing && !this.listingAttributes;
    if (this.on && !more) return false;
    this.on = true;
    if (more) this.listingAttributes = true;
    return true;
  }

  /** A request ended (here, or in a child this workflow lists): it heads the memo's history. `at`: also the latest resolution time. */
  addResolution(resolution: Resolution, { resolvedAt = false }: { resolvedAt?: boolean } = {}): void {
    this.recent = addResolution(this.recent, resolution);
    if (resolvedAt) this.resolvedAt = new Date(Date.parse(resolution.at));
  }

  /** Write what changed, for these pending requests (this workflow's own and its children's). */
  write(details: PendingRequest[]): void {
    if (!this.on) return;
    const awaiting = details.length > 0;
    const memo = JSON.stringify(listingMemo(details, this.recent));
    if (memo !== this.lastMemo) {
      this.lastMemo = memo;
      upsertMemo({ [LISTING_MEMO_KEY]: JSON.parse(memo) });
    }
    const updates: SearchAttributeUpdatePair[] = [];
    if (awaiting !== this.lastAwaiting) updates.push({ key: awaitingInputKey, value: awaiting });
    if (this.listingAttributes) {
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

  snapshot(): VisibilitySnapshot {
    return { ...(this.recent.length > 0 ? { recent: this.recent } : {}), ...(this.listingAttributes ? { listing: true as const } : {}) };
  }
}

/** The workflow was started with the awaiting-input search attribute (so it is registered). */
function startedWithSearchAttribute(): boolean {
  try {
    return workflowInfo().typedSearchAttributes.get(awaitingInputKey) !== undefined;
  } catch {
    return false;
  }
}

/** A request too large for the memo: its id, kind, expiry and the start of its prompt (open it to answer). */
function stub(d: PendingRequest): PendingRequest {
  const { id, kind, prompt, expiresAt } = d.request;
  return {
    request: { id, kind, prompt: cut(prompt, MEMO_LIMITS.promptShown), ...(expiresAt !== undefined ? { expiresAt } : {}) },
    context: d.context,
    tooLarge: true,
  };
}

/**
 * The memo of these pending requests (in order) and resolutions: each request whole when its JSON fits
 * MEMO_LIMITS.requestBytes, else a stub flagged `tooLarge`; at most MEMO_LIMITS.requests of them and
 * MEMO_LIMITS.totalBytes in all (the rest counted in `more`).
 */
export function listingMemo(details: PendingRequest[], recent: Resolution[]): ListingMemo {
  const pending: PendingRequest[] = [];
  let size = JSON.stringify(recent).length;
  let more = 0;
  for (const d of details) {
    let listed: PendingRequest = { request: d.request, context: d.context };
    let bytes = JSON.stringify(listed).length;
    if (bytes > MEMO_LIMITS.requestBytes) {
      listed = stub(d);
      bytes = JSON.stringify(listed).length;
    }
    if (pending.length >= MEMO_LIMITS.requests || size + bytes > MEMO_LIMITS.totalBytes) {
      more++;
      continue;
    }
    pending.push(listed);
    size += bytes;
  }
  return { v: 1, pending, ...(more > 0 ? { more } : {}), ...(recent.length > 0 ? { recent } : {}) };
}

/** The values of the listing's search attributes for these pending requests. */
export function listingAttributes(details: PendingRequest[]): { servers: string[]; kinds: string[]; nextExpiry: Date | undefined } {
  const servers = [...new Set(details.map((d) => d.context.server))].sort();
  const kinds = [...new Set(details.map((d) => d.request.kind))].sort();
  let next: number | undefined;
  for (const d of details) {
    const t = d.request.expiresAt ? Date.parse(d.request.expiresAt) : NaN;
    if (Number.isFinite(t) && (next === undefined || t < next)) next = t;
  }
  return { servers, kinds, nextExpiry: next === undefined ? undefined : new Date(next) };
}

/** Who a resolution is recorded as: what the answer's sender said (cut to 200 characters), else how it came. */
export function byOf(by: unknown, fallback: string): string {
  // Control characters become spaces (the name is shown on pages and terminals).
  // eslint-disable-next-line no-control-regex
  const text = typeof by === 'string' ? by.replace(/[\u0000-\u001f\u007f]/g, ' ').trim() : '';
  return text ? cut(text, 200) : fallback;
}

/** The resolution of a pending request. */
export function resolutionOf(
  d: PendingRequest,
  answer: Answer,
  by: string,
  at: string,
  sender: { source?: string; claimed?: string; assurance?: string } = {},
): Resolution {
  return {
    id: d.request.id,
    kind: d.request.kind,
    server: d.context.server,
    tool: d.context.tool,
    ...(d.context.step !== undefined ? { step: d.context.step } : {}),
    prompt: cut(d.request.prompt, 200),
    outcome: requestOutcomeOf(answer),
    by,
    ...(sender.source !== undefined ? { source: sender.source } : {}),
    ...(sender.claimed !== undefined ? { claimed: sender.claimed } : {}),
    ...(sender.assurance !== undefined ? { assurance: sender.assurance } : {}),
    ...(d.context.assignees ? { assignees: d.context.assignees } : {}),
    at,
  };
}

/** Add a resolution to the newest-first list, at most MEMO_LIMITS.recent, one per request id. */
export function addResolution(recent: Resolution[], r: Resolution): Resolution[] {
  return [r, ...recent.filter((x) => x.id !== r.id)].slice(0, MEMO_LIMITS.recent);
}
