/**
 * Every message between the workflows and the activities (docs/architecture.md "Planes"): each activity's input and
 * outcome, the updates and queries an activity sends its workflow (`elicit`, `loginWanted`, `loginCredentials`), and
 * the worker's features they carry. Workflows and activities import these from here, never from each other. Their
 * JSON shapes are recorded in workflow histories (an activity's input and result, an update's input): a shape never
 * changes; a TypeScript name may. Pure types (and one constant).
 */
import type { ApprovalContext } from './approval.js';
import type { Answer, ElicitParams, Request, ToolResult } from './index.js';
import type { LoginWanted, TokenInfo } from './login.js';
import type { PendingRequest } from './requests.js';

// ---- the worker's features, carried by the messages below ----

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

/**
 * Which of durable-mcp's search attributes a namespace has, as the worker finds them at start: none, only
 * DurableMcpAwaitingInput (`awaiting`), or all of SEARCH_ATTRIBUTES (`listing`).
 */
export type RegisteredSearchAttributes = 'none' | 'awaiting' | 'listing';

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

/**
 * What a server asks in one round, task or -32042 error (MCP's `inputRequests`), handed back to the workflow: only
 * elicitations (key → `{ method: "elicitation/create", params }`, params raw). Each becomes a Request.
 */
export type InputRequests = Record<string, { method: 'elicitation/create'; params: ElicitParams }>;

/**
 * Modern era (`form: "mrtr"`): the round ended `input_required`, and nothing is held meanwhile: answer, then send
 * the next round with `requestState`.
 */
export interface CallMcpToolInputRequired extends WorkerFeatures {
  status: 'input_required';
  form: 'mrtr';
  inputRequests: InputRequests;
  requestState?: string;
}

/**
 * Legacy era (`form: "url-error"`): a `-32042` URLElicitationRequiredError: complete the URLs (`url1`, `url2`, …),
 * then call again from the start. It shares `status: "input_required"` with the modern round (the recorded value).
 */
export interface CallMcpToolUrlRequired extends WorkerFeatures {
  status: 'input_required';
  form: 'url-error';
  inputRequests: InputRequests;
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
  | { status: 'input_required'; task: TaskHandle; inputRequests: InputRequests }
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

export interface ElicitInput extends WorkerFeatures {
  callId: string;
  request: Request;
}

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

export type ElicitOutcome = { status: 'answered'; answer: Answer } | { status: 'released'; request: Request };

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
