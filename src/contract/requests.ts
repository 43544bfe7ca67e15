/**
 * A request a person is asked, as durable-mcp's parts pass it on: `Request` (contract/schemas.ts, what a person sees,
 * byte for byte the seed contract), `PendingRequest` (the request with where it comes from: the `pendingDetails`
 * query's row, the memo's entry, a child's signal, the webhook's input), `PendingRecord` (the workflow's stored
 * record, workflows/host/records.ts) and `ListedRequest` (a listing's row, client/listing.ts). Pure types.
 */
import type { ApprovalContext } from './approval.js';
import type { Assignees } from './assignees.js';
import type { Request } from './schemas.js';
import { APPROVAL_ARGUMENTS_MAX } from './tool-arguments.js';

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
}
/**
 * At most this many characters of a call's arguments (as JSON) go with its pending requests: an approval's arguments
 * are never larger (APPROVAL_ARGUMENTS_MAX: larger ones are refused before anyone is asked), so an approval is never cut.
 */
export const ARGUMENTS_SHOWN = APPROVAL_ARGUMENTS_MAX;
/**
 * A pending request with its context: the one shape of it (the `pendingDetails` query's rows). The memo's entry
 * (MemoPendingRequest), the listing's row (ListedRequest), the inbox's row (PendingRow), the child's signal
 * (ChildPendingRequest) and the testing kit's `nextPending` (NextPending) are this shape with a little more or less.
 */
export interface PendingRequest {
  request: Request;
  context: PendingContext;
}
