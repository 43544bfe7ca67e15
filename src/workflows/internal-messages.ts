/**
 * The internal messages between durable-mcp's own parts: the activity `callMcpTool` and its workflow, a tool call
 * run as a child workflow and its parent (one inbox), a call and the login it waits for, the inbox's OAuth callback
 * and the login. No client of durable-mcp sends them. Deterministic: definitions only. The payloads the activities send or
 * read (`elicit`, `loginWanted`, `loginCredentials`) are typed in contract/activities.ts, with the activities' messages.
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
import type { ToolResult } from '../contract/index.js';
import type { PendingRequest } from './messages.js';
import type { Resolution } from './visibility.js';
import type { ElicitInput, ElicitOutcome, LoginCredentials, LoginWantedInput, LoginWantedResult } from '../contract/activities.js';

// ---- internal: between the activity `callMcpTool` and its own workflow ----

/** Internal: the activity reports a progress notification of its tool call (throttled). */
export const progressSignal = defineSignal<[{ callId: string; progress: number; total?: number; message?: string }]>(PROGRESS_SIGNAL);

/** Internal: the activity hands an elicitation to its workflow. The update id is the request id. */
export const elicitUpdate = defineUpdate<ElicitOutcome, [ElicitInput]>(ELICIT_UPDATE);

// ---- internal: between a tool call running as a child workflow and its parent (one inbox) ----

/** Internal: a child's request is pending (with the child's workflow id); the parent lists it and routes answers to the child. */
export const childPendingSignal = defineSignal<[PendingRequest & { child: string }]>(CHILD_PENDING_SIGNAL);
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

export const loginCredentialsQuery = defineQuery<LoginCredentials>(LOGIN_CREDENTIALS_QUERY);
