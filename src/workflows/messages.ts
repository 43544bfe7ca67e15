/**
 * The public messages: the signals, updates and queries a Temporal client sends a workflow that asks for input (and
 * a login). Payloads are plain JSON, so `temporal workflow signal --name answer --input '{"id":"…","ok":true,"data":{…}}'`
 * works with no SDK. The messages between durable-mcp's own parts are in internal-messages.ts; what a list of
 * workflows shows (search attributes, memo) in visibility.ts.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  ANSWER_SIGNAL,
  PENDING_DETAILS_QUERY,
  PENDING_QUERY,
  PROGRESS_QUERY,
  SUBMIT_ANSWER_UPDATE,
  WAIT_FOR_PENDING_UPDATE,
  LOGIN_STATUS_QUERY,
  LOGOUT_UPDATE,
} from '../contract/message-names.js';
import type { Answer, ElicitResult, Request } from '../contract/index.js';
import type { LoginStatus } from '../contract/login.js';
import type { PendingRequest } from '../contract/requests.js';

export { ARGUMENTS_SHOWN, type PendingContext, type PendingRequest } from '../contract/requests.js';

/**
 * Who gives an answer, sent beside it (a second argument of the `answer` signal or the `submitAnswer` update),
 * never inside it: the Answer's wire shape stays byte-exact. Without it the workflow records "signal" or "update".
 */
export interface AnswerBy {
  /** The person or program (the inbox's person, the CLI's user or `--as`); at most 200 characters are kept. */
  by?: string;
  /**
   * Where `by` comes from (docs/people.md): a verified sign-in, an answer link, the inbox's token, a proxy's header, the
   * CLI. A claim: `oidc`, `link`, `proxy` and `token` are recorded only with a valid `proof`, else as `claimed`.
   */
  source?: AnswerSource;
  /**
   * Who the person is, for N of M (docs/people.md): a stable key the sender vouches for (the inbox: a sign-in's verified
   * email, else its issuer and subject). Without it `by` is the key. Compared case- and width-insensitively (NFKC).
   * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
   */
  person?: string;
  /**
   * An answer link's binding (docs/people.md): the run it was made for. The workflow refuses the answer in any other
   * run (a new run with the same workflow id and the same request ids): a link answers once, for the run it was sent for.
   */
  link?: { run: string };
  /**
   * The inbox's proof that it vouches for `by`, `source`, `person` and `link` (docs/security.md "Who answered"): an HMAC
   * under the answer-link key the worker shares (src/codec/answer-link.ts `answerProof`), over them and the answer. The
   * worker checks it; a source stronger than `cli` without a valid one is recorded as claimed. Never recorded.
   */
  proof?: string;
}
/** Where who answered comes from, strongest first. */
export const ANSWER_SOURCES = ['oidc', 'link', 'proxy', 'token', 'cli'] as const;
export type AnswerSource = (typeof ANSWER_SOURCES)[number];

/** Answer a pending request. A bad answer is logged and dropped; the request stays pending. */
export const answerSignal = defineSignal<[Answer, AnswerBy?]>(ANSWER_SIGNAL);

export interface SubmitAnswerResult {
  id: string;
  /** What the MCP server will see. */
  action: ElicitResult['action'];
  /** N of M: the accept was counted, and this many more people must accept before it is taken. */
  awaiting?: number;
  /** N of M, while it waits: how many people must accept in all, and who has (shown names). */
  required?: number;
  acceptedBy?: string[];
  /** N of M: this person had already accepted; the answer counted nothing more. */
  repeated?: true;
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

/** The pending requests with their context (server, tool, step). */
export const pendingDetailsQuery = defineQuery<PendingRequest[]>(PENDING_DETAILS_QUERY);

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

// ---- the login of a server behind OAuth (workflow `mcpLogin`; docs/oauth.md) ----

/** Sign out: the login forgets its credentials; calls waiting for it fail with AuthorizationRequired. Returns the login's status. */
export const logoutUpdate = defineUpdate<LoginStatus, []>(LOGOUT_UPDATE);
/** The login's state, without any secret (`durable-mcp auth list`). */
export const loginStatusQuery = defineQuery<LoginStatus>(LOGIN_STATUS_QUERY);
