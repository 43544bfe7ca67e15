/**
 * Every message between the workflows and the activities (docs/architecture.md "Planes"): each activity's input and
 * outcome, the updates and queries an activity sends its workflow (`elicit`, `loginWanted`, `loginCredentials`), and
 * the worker's features they carry. Workflows and activities import these from here, never from each other. Their
 * JSON shapes are recorded in workflow histories (an activity's input and result, an update's input): a shape never
 * changes; a TypeScript name may. Pure types (and one constant).
 */
import type { Answer, ToolResult } from './index.js';
import type { LoginWanted, TokenInfo } from './login.js';
import type { PendingRequest } from './requests.js';
import type { WorkerFeatures } from './worker-features.js';
import type { CallMcpToolApprovalRequired } from '../gates/approval/messages.js';
import type { CallMcpToolLoginRequired } from '../gates/login/messages.js';
import type { ElicitInput, ElicitOutcome } from '../gates/question/messages.js';
import type { CallMcpToolReleased } from '../gates/release/messages.js';
import type { CallMcpToolInputRequired, CallMcpToolUrlRequired, InputRequests } from '../gates/round/messages.js';
import type { CallMcpToolTask, CancelMcpTaskInput, TaskHandle, WatchMcpTaskInput, WatchMcpTaskLoginRequired } from '../gates/task/messages.js';

// Each gate's messages are in its folder (src/gates/<kind>/messages.ts); here, with the rest, for both planes.
export type { RegisteredSearchAttributes, WorkerFeatures } from './worker-features.js';
export type { CallMcpToolApprovalRequired, CallMcpToolLoginRequired, CallMcpToolReleased, CallMcpToolInputRequired, CallMcpToolUrlRequired, InputRequests };
export type { ReleaseReason } from '../gates/release/messages.js';
export type { CallMcpToolTask, CancelMcpTaskInput, TaskHandle, WatchMcpTaskInput, WatchMcpTaskLoginRequired, ElicitInput, ElicitOutcome };

// ---- callMcpTool, watchMcpTask, cancelMcpTask, listMcpTools ----

/** Largest tool result (or round of input requests) an activity returns: Temporal rejects payloads over 2 MB. */
export const MAX_RESULT_BYTES = 1024 * 1024;

export interface CallMcpToolInput {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
  /** The tool call's stable id, assigned by the workflow. */
  callId: string;
  /** Answers the workflow already recorded for this call, by request id. */
  recorded?: Record<string, Answer>;
  /** Timeout of the `tools/call` request in ms. */
  toolTimeoutMs: number;
  /**
   * Modern era (MRTR): the previous round's answers (key → ElicitResult) and its `requestState`, echoed as
   * the server sent it. Absent on a call's first round.
   */
  round?: { inputResponses?: Record<string, unknown>; requestState?: string };
  /** A server behind OAuth with per-call principals: whose login the call uses (`auth.principal` of the call). */
  principal?: string;
  /**
   * Approvals (docs/approvals.md): `ask: "always"`, the call asks for a person's approval whatever the policy; `approved`,
   * a person approved these `arguments` (request `id`; `digest` of the approved arguments, checked before the tool runs).
   * Absent on calls that never needed one (their recorded inputs are unchanged).
   */
  approval?: { ask?: 'always'; approved?: { id: string; digest: string } };
  /**
   * Run as a local activity (an agent's call of a tool its listing marked `inline`; Versions.agentFastPath): an attempt
   * that could hold for a person (a legacy-era session, a tool that asks the old way) returns `{ status: "regular" }`
   * before anything runs, and the workflow runs the call as the activity instead.
   */
  inline?: true;
  /** The inline attempt found the tool asks the old way (refused in the 2026-07-28 era): run it in the legacy era at once. */
  oldWay?: true;
}

/** An inline attempt that did not run the tool: run the call as the (regular) activity (`oldWay`: in the legacy era). */
export interface CallMcpToolRegular {
  status: 'regular';
  oldWay?: true;
}

/** The tool's result, as the server sent it. */
export interface CallMcpToolCompleted {
  status: 'completed';
  result: ToolResult;
}

export type CallMcpToolOutcome =
  | CallMcpToolCompleted
  | CallMcpToolReleased
  | CallMcpToolInputRequired
  | CallMcpToolUrlRequired
  | CallMcpToolLoginRequired
  | CallMcpToolApprovalRequired
  | CallMcpToolTask
  | CallMcpToolRegular;

/** What one `watchMcpTask` returns (a failed or cancelled task fails it, typed). */
export type WatchMcpTaskOutcome =
  | { status: 'working'; task: TaskHandle }
  | { status: 'input_required'; task: TaskHandle; inputRequests: InputRequests }
  | CallMcpToolCompleted
  | WatchMcpTaskLoginRequired;

/** The input of `listMcpTools` (the workflow `mcpListTools` passes its server on). */
export interface ListMcpToolsInput {
  server: string;
  /**
   * A server behind OAuth that needs a (new) token ends the activity `login_required` (the workflow asks the login and
   * lists again), instead of failing it retryably. Set by listings since `durable-mcp:list-tools-login`: the ones
   * recorded before it expect a list and nothing else.
   */
  waitForLogin?: boolean;
  /** A server behind OAuth with per-call principals: whose login the listing uses (`auth.principal` of the listing). */
  principal?: string;
  /**
   * An agent's listing (Versions.agentFastPath, a local activity): also which tools may run inline (as local activities),
   * and from the session's cached list when it is fresh. The outcome is then `ListMcpToolsWithHints`.
   */
  hints?: true;
}

/**
 * An agent's listing with hints: the tools, and those a call may run as a local activity since it cannot hold for a
 * person (a 2026-07-28 session, a tool that does not ask the old way, a server with no OAuth).
 */
export interface ListMcpToolsWithHints {
  tools: McpToolInfo[];
  inline: string[];
}

/** The tools of the server, each as it listed it (the JSON recorded in histories of `mcpListTools`). */
export type ListMcpToolsListed = McpToolInfo[];

/** What `listMcpTools` returns: the tools, or (only with `waitForLogin`) the login it needs first, as a tool call's. */
export type ListMcpToolsOutcome = ListMcpToolsListed | ListMcpToolsWithHints | CallMcpToolLoginRequired;

/** A tool as its server lists it. Fields other than these pass through too, as the server sent them. */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  /** The JSON Schema of the tool's arguments, byte for byte as the server sent it (key order included). */
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

// ---- what an activity sends its workflow, and notifyPending ----

/** Where the `notifyPending` activity's request is answered, and why it is sent (its input: `PendingRequest & NotifyTarget`). */
export interface NotifyTarget {
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

/** Internal: why a call needs the login, and for which token (the login wanted, contract/login.ts), and who waits. */
export interface LoginWantedInput extends LoginWanted, Pick<WorkerFeatures, 'searchAttribute' | 'notify'> {
  /** The workflow of the call: it is signalled `loginSettled` when the login settles. */
  waiter: string;
  /** How long a login's request waits for a person (the call's `elicitation.expiresIn`, in ms). */
  expiresInMs?: number;
}

export type LoginWantedResult = { status: 'ready'; generation: number } | { status: 'waiting' };

/** Internal: a worker reads the login's token set (sealed: only a worker opens it). */
export interface LoginCredentials {
  generation: number;
  sealed?: string;
  expiresAtMs?: number;
}

// ---- a login's activities ----

/** What each step of a login runs with: the login, and its secrets as the login holds them (sealed; none before the first). */
interface LoginStepInput {
  loginId: string;
  server: string;
  principal: string;
  sealed?: string;
}

export interface OAuthAuthorizeInput extends LoginStepInput {
  scope?: string;
  forceReauthorization?: boolean;
  rediscover?: boolean;
  resourceMetadataUrl?: string;
}
export type OAuthAuthorizeOutcome =
  | { kind: 'authorized'; sealed: string; info: TokenInfo }
  | { kind: 'redirect'; sealed: string; url: string; state: string; issuer?: string; scopes?: string; refreshRejected: boolean };

export interface OAuthExchangeInput extends LoginStepInput {
  sealedCode: string;
  iss?: string;
}
export type OAuthExchangeOutcome = { kind: 'authorized'; sealed: string; info: TokenInfo } | { kind: 'rejected'; sealed: string; reason: string };

export interface RequestLoginInput extends LoginWantedInput {
  loginId: string;
}

/**
 * What an answer's proof covers (docs/security.md "Who answered"): the workflow it is sent to, the answer (its request id and
 * its JSON as sent), and who the inbox says gives it: `by`, `source`, `person`, and an answer link's run.
 */
export interface AnswerProofInput {
  workflowId: string;
  answer: unknown;
  by: string;
  source: string;
  person?: string;
  link?: { run: string };
}

export interface CheckAnswerProofInput extends AnswerProofInput {
  proof: string;
}

/**
 * The activities a durable-mcp worker registers (`createActivities(deps)` is declared as this type, so the compiler
 * checks each against its messages here); the workflows proxy them by this type. The names are the activity types
 * recorded in histories: they never change.
 */
export interface DurableMcpActivities {
  callMcpTool(input: CallMcpToolInput): Promise<CallMcpToolOutcome>;
  listMcpTools(input: ListMcpToolsInput): Promise<ListMcpToolsOutcome>;
  notifyPending(input: PendingRequest & NotifyTarget): Promise<{ sent: boolean; status?: number }>;
  oauthAuthorize(input: OAuthAuthorizeInput): Promise<OAuthAuthorizeOutcome>;
  oauthExchange(input: OAuthExchangeInput): Promise<OAuthExchangeOutcome>;
  requestLogin(input: RequestLoginInput): Promise<LoginWantedResult>;
  watchMcpTask(input: WatchMcpTaskInput): Promise<WatchMcpTaskOutcome>;
  cancelMcpTask(input: CancelMcpTaskInput): Promise<void>;
  checkAnswerProof(input: CheckAnswerProofInput): Promise<boolean>;
}
