/**
 * Visibility: what a list of workflows shows without asking any worker (docs/inbox-at-scale.md): the search attributes durable-mcp
 * sets, and the memo a workflow that asks for input keeps (its pending requests with their context, bounded, and the
 * latest resolutions). Written by the elicitation host (host/visibility.ts); read by the client's listing and the inbox.
 */
import { defineSearchAttributeKey } from '@temporalio/common';
import type { Assignees } from '../contract/assignees.js';
import type { Request } from '../contract/index.js';
import type { PendingRequest } from './messages.js';
import type { RequestOutcome } from '../contract/outcome.js';

/** Name of the Bool search attribute that is true while a workflow has a pending request. */
export const AWAITING_INPUT_SEARCH_ATTRIBUTE = 'DurableMcpAwaitingInput';
/** The typed key of that search attribute (registered by `durable-mcp dev` and docker-compose). */
export const awaitingInputKey = defineSearchAttributeKey(AWAITING_INPUT_SEARCH_ATTRIBUTE, 'BOOL');

/** KeywordList: the servers of the pending requests. */
export const SERVERS_SEARCH_ATTRIBUTE = 'DurableMcpServers';
/** KeywordList: the kinds of the pending requests (`input`, `authorization`). */
export const KINDS_SEARCH_ATTRIBUTE = 'DurableMcpKinds';
/** Datetime: the earliest expiry among the pending requests. */
export const NEXT_EXPIRY_SEARCH_ATTRIBUTE = 'DurableMcpNextExpiry';
/** Datetime: when a request of the workflow was last resolved (the inbox's history lists by it). */
export const RESOLVED_AT_SEARCH_ATTRIBUTE = 'DurableMcpResolvedAt';
export const serversKey = defineSearchAttributeKey(SERVERS_SEARCH_ATTRIBUTE, 'KEYWORD_LIST');
export const kindsKey = defineSearchAttributeKey(KINDS_SEARCH_ATTRIBUTE, 'KEYWORD_LIST');
export const nextExpiryKey = defineSearchAttributeKey(NEXT_EXPIRY_SEARCH_ATTRIBUTE, 'DATETIME');
export const resolvedAtKey = defineSearchAttributeKey(RESOLVED_AT_SEARCH_ATTRIBUTE, 'DATETIME');
export type { RegisteredSearchAttributes } from '../contract/activities.js';
/**
 * Every search attribute durable-mcp uses, with its type as `temporal operator search-attribute create --type` names it
 * (dev, the testing kit and docker-compose register them all). Nothing sensitive: search attributes are never encoded.
 */
export const SEARCH_ATTRIBUTES = [
  { name: AWAITING_INPUT_SEARCH_ATTRIBUTE, type: 'Bool', key: awaitingInputKey },
  { name: SERVERS_SEARCH_ATTRIBUTE, type: 'KeywordList', key: serversKey },
  { name: KINDS_SEARCH_ATTRIBUTE, type: 'KeywordList', key: kindsKey },
  { name: NEXT_EXPIRY_SEARCH_ATTRIBUTE, type: 'Datetime', key: nextExpiryKey },
  { name: RESOLVED_AT_SEARCH_ATTRIBUTE, type: 'Datetime', key: resolvedAtKey },
] as const;

/** The memo key under which a workflow keeps what a person needs to see (encoded by the payload codec). */
export const LISTING_MEMO_KEY = 'durableMcp';
/** How a request ended, who ended it and when. `by`: a person or program, "signal", "update", "expiry" or "workflow". */
export interface Resolution {
  id: string;
  kind: Request['kind'];
  server: string;
  tool: string;
  step?: string;
  /** The prompt, cut to 200 characters. */
  prompt: string;
  outcome: RequestOutcome;
  by: string;
  /**
   * Where `by` comes from, as the worker checked it (docs/security.md "Who answered"): oidc, link, proxy, token (each proved
   * by the inbox), cli, or `claimed` (a stronger source named without a valid proof); absent: a bare signal or update.
   */
  source?: string;
  /** The source a sender named but did not prove (with `source: "claimed"`): what it claimed, never what it is. */
  claimed?: string;
  /**
   * How strongly the worker knows who answered (derived by the worker, never by the sender): issuer-verified (oidc),
   * signed-link (link), proxy-header (proxy), inbox-token (token), claimed (the CLI, a bare signal or update, a claimed
   * source: Temporal client access only). Absent for an expiry or a withdrawal, and in older records.
   */
  assurance?: string;
  /** Whom the request was addressed to (absent: anyone): the inbox's history shows it to them only (docs/people.md). */
  assignees?: Assignees;
  /** Workflow time, ISO 8601. */
  at: string;
}
/** The memo of a workflow that asks for input: bounded (MEMO_LIMITS), rewritten whenever its requests change. */
export interface ListingMemo {
  v: 1;
  pending: PendingRequest[];
  /** Pending requests left out of `pending` (past the count or size bound): open the workflow to see them. */
  more?: number;
  /** The latest resolutions, newest first. */
  recent?: Resolution[];
}
/** The bounds of the listing memo: it is returned with every listed row, so it stays small. */
export const MEMO_LIMITS = { requests: 16, requestBytes: 8_192, totalBytes: 32_768, recent: 10, promptShown: 300 } as const;
