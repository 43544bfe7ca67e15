/**
 * The internal messages between durable-mcp's own parts: the activity `callMcpTool` and its workflow, a tool call
 * run as a child workflow and its parent (one inbox), a call and the login it waits for, the inbox's OAuth callback
 * and the login. No client of durable-mcp sends them. Deterministic: definitions only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  CHILD_DONE_SIGNAL,
  CHILD_PENDING_SIGNAL,
  CHILD_RESOLVED_SIGNAL,
  ELICIT_UPDATE,
  PROGRESS_SIGNAL,
  LOGIN_CREDENTIALS_QUERY,
  LOGIN_SETTLED_SIGNAL,
  LOGIN_WANTED_UPDATE,
  OAUTH_CALLBACK_UPDATE,
} from '../contract/message-names.js';
import type { Answer, Request, ToolResult } from '../contract/index.js';
import type { LoginWanted } from '../contract/login.js';
import type { PendingRequest } from './messages.js';
import type { Resolution } from './visibility.js';

// ---- internal: between the activity `callMcpTool` and its own workflow ----

/** Internal: the activity reports a progress notification of its tool call (throttled). */
export const progressSignal = defineSignal<[{ callId: string; progress: number; total?: number; message?: string }]>(PROGRESS_SIGNAL);

/**
 * The worker's features, as its workflows learn them: one object, spread flat into the payloads that carry it (the
 * `elicit` update's input, the `callMcpTool` activity's waiting outcomes, the `loginWanted` update's input), so the
 * recorded histories keep their field names. The worker derives it from ActivityDeps (activities/deps.ts
 * `workerFeatures`); the host takes it in one method (`useWorkerFeatures`).
 */
export interface WorkerFeatures {
  /** The worker found the DurableMcpAwaitingInput search attribute registered: the workflow keeps it current. */
  searchAttribute?: boolean;
  /** The worker found every listing search attribute registered too (SEARCH_ATTRIBUTES): the workflow keeps them current. */
  listing?: boolean;
  /** The worker's config names a webhook: the workflow runs `notifyPending` when a request becomes pending. */
  notify?: boolean;
}

export interface ElicitInput extends WorkerFeatures {
  callId: string;
  request: Request;
}

/** Input of the `notifyPending` activity: one new pending request. */
export interface NotifyPendingInput extends PendingRequest {
  /** The workflow to answer it through (a pipeline's, for a request of one of its steps). */
  workflowId: string;
  /**
   * The run of that workflow an answer link is bound to (docs/people.md): its first run's id (kept across
   * continue-as-new), or, for a step's request, the pipeline's run then.
   */
  runId?: string;
  /** A follow-up of a request still waiting (docs/people.md); absent: the first notification. */
  event?: 'reminder' | 'escalation';
}
export type ElicitOutcome = { status: 'answered'; answer: Answer } | { status: 'released'; request: Request };
/** Internal: the activity hands an elicitation to its workflow. The update id is the request id. */
export const elicitUpdate = defineUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE);

// ---- internal: between a tool call running as a child workflow and its parent (one inbox) ----

/** A child's pending request, with the child's workflow id. */
export interface ChildPendingRequest extends PendingRequest {
  child: string;
}
/** Internal: a child's request is pending; the parent lists it and routes answers to the child. */
export const childPendingSignal = defineSignal<[ChildPendingRequest]>(CHILD_PENDING_SIGNAL);
/** Internal: a child's request was resolved (answered there, expired, or withdrawn). */
export const childResolvedSignal = defineSignal<[{ child: string; id: string; resolution?: Resolution }]>(CHILD_RESOLVED_SIGNAL);
export interface ChildDone {
  child: string;
  step: string;
  result?: ToolResult;
  error?: string;
}
/** Internal: a child tool call finished (a signal, so a parent that continued-as-new still learns it). */
export const childDoneSignal = defineSignal<[ChildDone]>(CHILD_DONE_SIGNAL);

// ---- internal: a call and the login of a server behind OAuth (workflow `mcpLogin`; docs/oauth.md) ----

/** Internal: why a call needs the login, and for which token (the login wanted, contract/login.ts), and who waits. */
export interface LoginWantedInput extends LoginWanted, Pick<WorkerFeatures, 'searchAttribute' | 'notify'> {
  /** The workflow of the call: it is signalled `loginSettled` when the login settles. */
  waiter: string;
  /** How long a login's request waits for a person (the call's `elicitation.expiresIn`, in ms). */
  expiresInMs?: number;
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
