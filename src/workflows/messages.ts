/**
 * Message definitions shared by workflows and Temporal clients. Payloads are plain JSON, so
 * `temporal workflow signal --name answer --input '{"id":"…","ok":true,"data":{…}}'` works with no SDK.
 */
import { defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  ANSWER_SIGNAL,
  ELICIT_UPDATE,
  PENDING_DETAILS_QUERY,
  PENDING_QUERY,
  PROGRESS_QUERY,
  PROGRESS_SIGNAL,
  SUBMIT_ANSWER_UPDATE,
  WAIT_FOR_PENDING_UPDATE,
  LOGIN_CREDENTIALS_QUERY,
  LOGIN_SETTLED_SIGNAL,
  LOGIN_STATUS_QUERY,
  LOGIN_WANTED_UPDATE,
  LOGOUT_UPDATE,
  OAUTH_CALLBACK_UPDATE,
} from '../contract/message-names.js';
import type { Answer, ElicitResult, Request } from '../contract/index.js';
import type { LoginStatus, LoginWanted } from '../contract/login.js';

/**
 * Who gives an answer, sent beside it (a second argument of the `answer` signal or the `submitAnswer` update),
 * never inside it: the Answer's wire shape stays byte-exact. Without it the workflow records "signal" or "update".
 */
export interface AnswerBy {
  /** The person or program (the inbox's person, the CLI's user or `--as`); at most 200 characters are kept. */
  by?: string;
}

/** Answer a pending request. A bad answer is logged and dropped; the request stays pending. */
export const answerSignal = defineSignal<[Answer, AnswerBy?]>(ANSWER_SIGNAL);

export interface SubmitAnswerResult {
  id: string;
  /** What the MCP server will see. */
  action: ElicitResult['action'];
}
/** Answer a pending request and learn whether it was accepted: a bad answer rejects the update with the reason. */
export const submitAnswerUpdate = defineUpdate<SubmitAnswerResult, [Answer, AnswerBy?]>(SUBMIT_ANSWER_UPDATE);

/** The pending requests, exactly as Requests. */
export const pendingQuery = defineQuery<Request[]>(PENDING_QUERY);

export interface WaitForPendingInput {
  /** Ids of requests the caller has already seen: the wait ends once a request not among them is pending. */
  seen?: string[];
  /** Longest wait in ms (default 60 s, at most 10 min). On timeout the current list (maybe empty) is returned. */
  timeoutMs?: number;
}
/**
 * Wait until a request the caller has not seen is pending, then return the pending requests (as `pending`
 * does). A push for bots and UIs, instead of polling the query: it returns in the same workflow task that
 * records the request. It also returns, with the current list, on timeout and when the run closes. At most
 * two may wait at once per workflow (Temporal allows about ten updates in flight per run).
 */
export const waitForPendingUpdate = defineUpdate<Request[], [WaitForPendingInput]>(WAIT_FOR_PENDING_UPDATE);

/** Where a pending request comes from: what a person needs to act on it. */
export interface PendingContext {
  callId: string;
  server: string;
  tool: string;
  /** The pipeline step, when the call is part of a pipeline. */
  step?: string;
  /** URL mode (`kind: "authorization"`): the host the link goes to, to show beside it. */
  host?: string;
  /** A sign-in of a server behind OAuth (the login workflow's request): whose, at which authorization server, for what. */
  login?: { principal: string; issuer?: string; scopes?: string };
  /** When the request was recorded (workflow time, ISO 8601). */
  askedAt?: string;
  /** The tool call's arguments as JSON text, cut to ARGUMENTS_SHOWN characters (untrusted: escape it). */
  arguments?: string;
}
/** At most this many characters of a call's arguments (as JSON) go with its pending requests. */
export const ARGUMENTS_SHOWN = 1_000;
export interface PendingRequestDetails {
  request: Request;
  context: PendingContext;
}
/** The pending requests with their context (server, tool, step). */
export const pendingDetailsQuery = defineQuery<PendingRequestDetails[]>(PENDING_DETAILS_QUERY);

/** The last MCP progress notification of a running tool call (`notifications/progress`). */
export interface CallProgress {
  callId: string;
  server: string;
  tool: string;
  step?: string;
  progress: number;
  total?: number;
  message?: string;
}
/** The progress of the workflow's running tool calls (those that reported any). */
export const progressQuery = defineQuery<CallProgress[]>(PROGRESS_QUERY);

// ---- internal: between the activity `callMcpTool` and its own workflow ----

/** Internal: the activity reports a progress notification of its tool call (throttled). */
export const progressSignal = defineSignal<[{ callId: string; progress: number; total?: number; message?: string }]>(PROGRESS_SIGNAL);

export interface ElicitInput {
  callId: string;
  request: Request;
  /** The worker found the DurableMcpAwaitingInput search attribute registered. */
  searchAttribute?: boolean;
  /** The worker found the listing's search attributes registered too (LISTING_SEARCH_ATTRIBUTES). */
  listing?: boolean;
  /** The worker's config names a webhook: the workflow runs `notifyPending` when a request becomes pending. */
  notify?: boolean;
}

/** Input of the `notifyPending` activity: one new pending request. */
export interface NotifyPendingInput {
  /** The workflow to answer it through (a pipeline's, for a request of one of its steps). */
  workflowId: string;
  request: Request;
  context: PendingContext;
}
export type ElicitOutcome = { status: 'answered'; answer: Answer } | { status: 'released'; request: Request };
/** Internal: the activity hands an elicitation to its workflow. The update id is the request id. */
export const elicitUpdate = defineUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE);

// ---- internal: between a tool call running as a child workflow and its parent (one inbox) ----

export interface ChildPending {
  child: string;
  request: Request;
  context: PendingContext;
}
/** Internal: a child's request is pending; the parent lists it and routes answers to the child. */
export const childPendingSignal = defineSignal<[ChildPending]>('durable-mcp.childPending');
/** Internal: a child's request was resolved (answered there, expired, or withdrawn). */
export const childResolvedSignal = defineSignal<[{ child: string; id: string; resolution?: Resolution }]>('durable-mcp.childResolved');
export interface ChildDone {
  child: string;
  step: string;
  result?: import('../contract/index.js').ToolResult;
  error?: string;
}
/** Internal: a child tool call finished (a signal, so a parent that continued-as-new still learns it). */
export const childDoneSignal = defineSignal<[ChildDone]>('durable-mcp.childDone');

/** Name of the Bool search attribute that is true while a workflow has a pending request. */
export const AWAITING_INPUT_SEARCH_ATTRIBUTE = 'DurableMcpAwaitingInput';
/** The typed key of that search attribute (registered by `durable-mcp dev` and docker-compose). */
export const awaitingInputKey = defineSearchAttributeKey(AWAITING_INPUT_SEARCH_ATTRIBUTE, 'BOOL');

// ---- the login of a server behind OAuth (workflow `mcpLogin`; docs/oauth.md) ----

/** Sign out: the login forgets its credentials; calls waiting for it fail with AuthorizationRequired. Returns the login's status. */
export const logoutUpdate = defineUpdate<LoginStatus, []>(LOGOUT_UPDATE);
/** The login's state, without any secret (`durable-mcp auth list`). */
export const loginStatusQuery = defineQuery<LoginStatus>(LOGIN_STATUS_QUERY);

/** Internal: why a call needs the login, and for which token (the login wanted, contract/login.ts), and who waits. */
export interface LoginWantedInput extends LoginWanted {
  /** The workflow of the call: it is signalled `loginSettled` when the login settles. */
  waiter: string;
  /** How long a sign-in request waits for a person (the call's `elicitation.expiresIn`, in ms). */
  expiresInMs?: number;
  /** The worker found the DurableMcpAwaitingInput search attribute registered; it has a webhook. */
  searchAttribute?: boolean;
  notify?: boolean;
}
export type LoginWantedResult = { status: 'ready'; generation: number } | { status: 'waiting' };
/** Internal: a call asks the login for a newer token than the one it has (update-with-start: one login per credential set). */
export const loginWantedUpdate = defineUpdate<LoginWantedResult, [LoginWantedInput]>(LOGIN_WANTED_UPDATE);

/** Internal: the login settled: a new token (its generation), or a failure every waiting call fails with. */
export interface LoginSettled {
  loginId: string;
  generation?: number;
  failure?: { type: string; message: string };
}
export const loginSettledSignal = defineSignal<[LoginSettled]>(LOGIN_SETTLED_SIGNAL);

/** Internal: the authorization response as the inbox's `/oauth/callback` got it (the code sealed: never plaintext in history). */
export interface OAuthCallbackInput {
  state: string;
  sealedCode?: string;
  iss?: string;
  /** The authorization server's `error` code (never its description: attacker-controlled text). */
  error?: string;
}
export interface OAuthCallbackResult {
  status: 'signed-in' | 'asked-again' | 'failed' | 'refused';
  message: string;
}
export const oauthCallbackUpdate = defineUpdate<OAuthCallbackResult, [OAuthCallbackInput]>(OAUTH_CALLBACK_UPDATE);

/** Internal: a worker reads the login's token set (sealed: only a worker opens it). */
export interface LoginCredentials {
  generation: number;
  sealed?: string;
  expiresAtMs?: number;
}
export const loginCredentialsQuery = defineQuery<LoginCredentials>(LOGIN_CREDENTIALS_QUERY);

// ---- visibility: what a list of workflows shows without asking any worker (DESIGN §8) ----

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
/** A pending request as the memo lists it. `tooLarge`: the request did not fit; open it (one query) to answer it. */
export interface MemoRequest {
  request: Request;
  context: PendingContext;
  tooLarge?: true;
}
/** How a request ended, who ended it and when. `by`: a person or program, "signal", "update", "expiry" or "workflow". */
export interface Resolution {
  id: string;
  kind: Request['kind'];
  server: string;
  tool: string;
  step?: string;
  /** The prompt, cut to 200 characters. */
  prompt: string;
  outcome: 'accepted' | 'declined' | 'cancelled' | 'expired';
  by: string;
  /** Workflow time, ISO 8601. */
  at: string;
}
/** The memo of a workflow that asks for input: bounded (MEMO_LIMITS), rewritten whenever its requests change. */
export interface ListingMemo {
  v: 1;
  pending: MemoRequest[];
  /** Pending requests left out of `pending` (past the count or size bound): open the workflow to see them. */
  more?: number;
  /** The latest resolutions, newest first. */
  recent?: Resolution[];
}
/** The bounds of the listing memo: it is returned with every listed row, so it stays small. */
export const MEMO_LIMITS = { requests: 16, requestBytes: 8_192, totalBytes: 32_768, recent: 10, promptShown: 300 } as const;
