/**
 * The inputs and outcomes of the activities, shared by the files of each job. Their JSON shapes are recorded in
 * workflow histories (an activity's input and result): a shape never changes; a TypeScript name may.
 */
import type { ApprovalContext } from '../contract/approval.js';
import type { Answer, ElicitParams, Request, ToolResult } from '../contract/index.js';
import type { LoginWanted } from '../contract/login.js';
import type { WorkerFeatures } from '../workflows/internal-messages.js';
import type { McpToolInfo } from '../mcp/index.js';

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
}

export type ReleaseReason = 'hold-expired' | 'server-gave-up' | 'session-needed' | 'worker-shutdown' | 'workflow-unreachable';

/** The tool's result, as the server sent it. */
export interface CallMcpToolCompleted {
  status: 'completed';
  result: ToolResult;
}

/** Legacy era: the call waited on a live session for a person and gave the session up (why: `reason`); the request waits on. */
export interface CallMcpToolReleased extends WorkerFeatures {
  status: 'released';
  request: Request;
  reason: ReleaseReason;
}

/** Input requests handed back to the workflow: only elicitations (key → `{ method: "elicitation/create", params }`, params raw). */
export type ElicitationRequests = Record<string, { method: 'elicitation/create'; params: ElicitParams }>;

/**
 * Modern era (`form: "mrtr"`): the round ended `input_required`, and nothing is held meanwhile: answer, then send
 * the next round with `requestState`.
 */
export interface CallMcpToolInputRequired extends WorkerFeatures {
  status: 'input_required';
  form: 'mrtr';
  inputRequests: ElicitationRequests;
  requestState?: string;
}

/**
 * Legacy era (`form: "url-error"`): a `-32042` URLElicitationRequiredError: complete the URLs (`url1`, `url2`, …),
 * then call again from the start. It shares `status: "input_required"` with the modern round (the recorded value).
 */
export interface CallMcpToolUrlRequired extends WorkerFeatures {
  status: 'input_required';
  form: 'url-error';
  inputRequests: ElicitationRequests;
  /** Never set: the call is made again from the start. */
  requestState?: undefined;
}

/**
 * A server behind OAuth needs a (new) access token: the call had none, it expired, or the server refused it. Nothing is
 * held; the workflow asks the login (`requestLogin`) and runs the call again once the login settles.
 */
export interface CallMcpToolLoginRequired extends WorkerFeatures {
  status: 'login_required';
  /** The login wanted (contract/login.ts), and the login's workflow id. */
  login: LoginWanted & { loginId: string };
}

/**
 * The policy (or the call) wants a person's approval before the tool runs, and the call brings none: nothing ran. The
 * workflow records `request` (asked once: its id derives from the call id and the arguments' digest) and runs the call
 * again with the approved arguments, or returns a result saying the tool did not run.
 */
export interface CallMcpToolApprovalRequired extends WorkerFeatures {
  status: 'approval_required';
  request: Request;
  context: ApprovalContext;
  /** The policy's `expiresIn` (ms), when it sets one. */
  expiresInMs?: number;
}

/** A server's task (MCP Tasks, 2026-07-28 extension) as the workflow keeps it: its id first (docs/tasks.md). */
export interface TaskHandle {
  taskId: string;
  status: string;
  statusMessage?: string;
  /** Ms from the task's creation the server keeps it; null: unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** The server runs the call as a task (2026-07-28 extension): the workflow records its id and watches it (`watchMcpTask`). */
export interface CallMcpToolTask extends WorkerFeatures {
  status: 'task';
  task: TaskHandle;
}

export type CallMcpToolOutcome =
  | CallMcpToolCompleted
  | CallMcpToolReleased
  | CallMcpToolInputRequired
  | CallMcpToolUrlRequired
  | CallMcpToolLoginRequired
  | CallMcpToolApprovalRequired
  | CallMcpToolTask;

/** The input of `watchMcpTask`: poll one task until it asks, ends, or `capMs` passed. */
export interface WatchMcpTaskInput {
  server: string;
  tool: string;
  callId: string;
  taskId: string;
  pollIntervalMs?: number;
  /** Answers to the task's input requests (key → ElicitResult), sent first with `tasks/update`. */
  inputResponses?: Record<string, unknown>;
  /** The activity returns `working` after this long (ms), so a long task's history stays bounded. */
  capMs: number;
  principal?: string;
}

/**
 * A server behind OAuth needs a (new) token while a task is watched (its token expired, was revoked, or lacks a scope):
 * the login wanted, as `callMcpTool`'s; the workflow asks the login, then watches the same task again. `answersSent`:
 * the watch's `tasks/update` went through before the refusal (the answers are not sent again).
 */
export interface WatchMcpTaskLoginRequired extends CallMcpToolLoginRequired {
  answersSent?: true;
}

/** What one `watchMcpTask` returns (a failed or cancelled task fails it, typed). */
export type WatchMcpTaskOutcome =
  | { status: 'working'; task: TaskHandle }
  | { status: 'input_required'; task: TaskHandle; inputRequests: ElicitationRequests }
  | CallMcpToolCompleted
  | WatchMcpTaskLoginRequired;

/** The input of `cancelMcpTask`. */
export interface CancelMcpTaskInput {
  server: string;
  taskId: string;
  principal?: string;
}

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
}

/** The tools of the server, each as it listed it (the JSON recorded in histories of `mcpListTools`). */
export type ListMcpToolsListed = McpToolInfo[];

/** What `listMcpTools` returns: the tools, or (only with `waitForLogin`) the login it needs first, as a tool call's. */
export type ListMcpToolsOutcome = ListMcpToolsListed | CallMcpToolLoginRequired;
