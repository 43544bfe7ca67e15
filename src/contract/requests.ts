/**
 * The request model: what a person is asked goes by five names, wherever it is.
 * - `InputRequests` (contract/activities.ts): what a server asks in one round, task or -32042 error, as MCP sends it
 *   (key → `elicitation/create` params), before durable-mcp has made a Request of it.
 * - `Request` (contract/schemas.ts): what a person sees and answers, byte for byte the seed contract.
 * - `PendingRequest` (here): a Request with where it comes from (`PendingContext`): the `pendingDetails` query's row, the
 *   listing memo's entry, a pipeline child's signal, the webhook activity's input, the testing kit's `nextPending`.
 * - `PendingRecord` (workflows/host/records.ts): the workflow's own record of it, carried across continue-as-new.
 * - `ListedRequest` (here): a PendingRequest found by a listing, with its workflow (client, inbox, CLI).
 *
 * The words around them (docs/architecture.md "Glossary"): an **approval** is a request to allow a tool call before it
 * runs (its context says which tool, with which arguments); an **assignee** is a user or role a request is addressed
 * to (who may answer); a **task** is an MCP server's handle for a long tool run, which the call follows; an **agent** is
 * a model's tool loop (`mcpAgent`) whose tools are durable calls; a **gate** is what a call waits on between two runs of
 * its activity (an approval, a login, a round, a question, a task, a release). Pure types.
 */
import type { ApprovalContext } from './approval.js';
import type { Assignees } from './assignees.js';
import type { Request } from './schemas.js';
import { APPROVAL_ARGUMENTS_MAX } from './tool-arguments.js';

/**
 * Who asked for a call through the Nexus service (docs/nexus.md): the caller's namespace and workflow, as the links of
 * the caller's Temporal server name them. Untrusted text (escape it); it says who asked, it does not authenticate.
 */
export interface NexusCaller {
  namespace: string;
  workflowId?: string;
  runId?: string;
}

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
  /** The tool call's arguments as JSON text, cut to ARGUMENTS_SHOWN characters (an approval's: whole; untrusted: escape it). */
  arguments?: string;
  /**
   * An approval (docs/approvals.md): a person allows the tool to run with these arguments. The tool's title,
   * description and annotations as its server lists them (untrusted text: escape it), whether the config trusts them,
   * and whether the form edits the arguments.
   */
  approval?: ApprovalContext;
  /** Who may answer (docs/people.md): absent, anyone allowed into the inbox. An approval's come from the policy when it names them. */
  assignees?: Assignees;
  /** N of M (docs/people.md): how many distinct people must accept, and who has. */
  approvals?: { required: number; accepted: string[] };
  /** A reminder was sent (`elicitation.remindAfter`). */
  reminded?: true;
  /** It was escalated (`elicitation.escalateAfter`): who was added to the assignees. */
  escalated?: Assignees;
  /** A call through the Nexus service: who asked (the caller's namespace and workflow). */
  caller?: NexusCaller;
}
/**
 * At most this many characters of a call's arguments (as JSON) go with its pending requests: an approval's arguments
 * are never larger (APPROVAL_ARGUMENTS_MAX: larger ones are refused before anyone is asked), so an approval is never cut.
 */
export const ARGUMENTS_SHOWN = APPROVAL_ARGUMENTS_MAX;
/**
 * A pending request with its context: the one shape of it, wherever it goes: the `pendingDetails` query's rows, the
 * listing memo's entries, a pipeline child's signal to its parent (with `child`), the `notifyPending` activity's input
 * (with a NotifyTarget), the testing kit's `nextPending`. A listing's row is a ListedRequest (client/listing.ts).
 */
export interface PendingRequest {
  request: Request;
  context: PendingContext;
  /** In the listing memo only: the request did not fit; open it (one query) to answer it. */
  tooLarge?: true;
}

/** One pending request, listed: the memo's entry (`tooLarge`: the memo holds only its start) with its workflow. */
export interface ListedRequest extends PendingRequest {
  workflowId: string;
  runId: string;
  workflowType: string;
  startTime: string;
  /** From the workflow's `pendingDetails` query (a workflow started before the listing memo), not from its memo. */
  queried?: true;
  /** No worker polls the workflow's task queue (asked once per task queue, kept 10 s): an answer would wait for one. */
  noWorker?: string;
}
