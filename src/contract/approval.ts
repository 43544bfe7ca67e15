/**
 * Approvals (docs/approvals.md): a person allows a tool before it runs. Pure and deterministic (workflow code and the
 * activity use it alike; unit tests need no server): the policy and its check, the digest that binds an approval to
 * the exact arguments, the Request a person answers (a form of the tool's arguments, prefilled), the arguments an
 * answer approves, and the result a caller gets when the tool did not run.
 */
import { checkRequestedSchema } from './admit-schema.js';
import { assigneesProblem, normalizeAssignees, type Assignees } from './assignees.js';
import { canonicalJson, fnv1a64 } from './id.js';
import { isPlainObject, preview } from './json.js';
import type { Answer, Request, ToolResult } from './schemas.js';

/** The policy, as the config writes it (per server in mcp.json, and a worker-wide default at the top). */
export type ApprovalSetting = 'always' | 'never' | 'destructive' | ApprovalPolicyObject;
export interface ApprovalPolicyObject {
  /** The tools this policy gates (names or globs with `*` and `?`); default: every tool. */
  tools?: string[];
  /** Tools never gated (names or globs), even when `tools` names them. */
  except?: string[];
  /** `trust`: a tool the server annotates `readOnlyHint: true` is not gated; `ignore` (default): annotations change nothing. */
  annotations?: 'trust' | 'ignore';
  /** How long an approval may wait before it expires (ms, or a Duration string like "1h", resolved at config load). */
  expiresIn?: number | string;
  /** Who may answer the approvals this policy asks for (docs/people.md); default: the call's assignees, else anyone. */
  assignees?: Assignees;
  /** N of M: how many distinct people must approve (default 1); one decline declines. */
  approvals?: number;
  /** Notify the assignees again when an approval still waits after this long (ms, or a Duration string). */
  remindAfter?: number | string;
  /** Add `escalateTo` to an approval's assignees, and notify them, when it still waits after this long. */
  escalateAfter?: number | string;
  escalateTo?: Assignees;
}

/** Reminders and escalation of a request (docs/people.md), in ms. */
export interface FollowUps {
  remindAfterMs?: number;
  escalateAfterMs?: number;
  escalateTo?: Assignees;
}

/** The policy, normalized (what the worker checks a call against). */
export interface ApprovalPolicy {
  gate: 'always' | 'never' | 'destructive';
  tools?: string[];
  except?: string[];
  annotations: 'trust' | 'ignore';
  expiresInMs?: number;
  assignees?: Assignees;
  approvals?: number;
  followUps?: FollowUps;
}

/** What a call may ask for beyond the policy (never less). */
export type ApprovalAsk = 'always';

export const NO_APPROVAL: ApprovalPolicy = { gate: 'never', annotations: 'ignore' };
const POLICY_KEYS = ['tools', 'except', 'annotations', 'expiresIn', 'assignees', 'approvals', 'remindAfter', 'escalateAfter', 'escalateTo'];

/** A wrong policy: the field (below `approval`) and what is wrong with it. */
export interface PolicyProblem {
  field: string;
  problem: string;
}

/**
 * The policy of a config value, or what is wrong with it. `toMs` turns a Duration string into ms (NaN: not one), so
 * this file needs no duration parser of its own.
 */
export function parseApprovalPolicy(raw: unknown, toMs: (v: string) => number): ApprovalPolicy | PolicyProblem {
  if (raw === 'always' || raw === 'never' || raw === 'destructive') return { gate: raw, annotations: 'ignore' };
  const shape = 'must be "always", "never", "destructive" or an object like {"tools":["delete_*"],"except":[…],"annotations":"trust","expiresIn":"1h"}';
  if (!isPlainObject(raw)) return { field: 'approval', problem: `${shape}, got ${preview(raw, { max: 40 })}` };
  const unknown = Object.keys(raw).filter((k) => !POLICY_KEYS.includes(k));
  if (unknown.length > 0) return { field: `approval.${unknown[0]}`, problem: `is not a field of an approval policy; it takes ${POLICY_KEYS.join(', ')}` };
  const policy: ApprovalPolicy = { gate: 'destructive', annotations: 'ignore' };
  for (const key of ['tools', 'except'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (!Array.isArray(v) || v.some((n) => typeof n !== 'string' || n === '')) {
      return { field: `approval.${key}`, problem: `must be an array of tool names or globs ("delete_*"), got ${preview(v, { max: 40 })}` };
    }
    policy[key] = v as string[];
  }
  const a = raw.annotations;
  if (a !== undefined && a !== 'trust' && a !== 'ignore')
    return { field: 'approval.annotations', problem: `must be "trust" or "ignore", got ${preview(a, { max: 40 })}` };
  if (a !== undefined) policy.annotations = a;
  const e = raw.expiresIn;
  if (e !== undefined) {
    const ms = typeof e === 'string' ? toMs(e) : e;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms <= 0 || ms > 2 ** 31 - 1) {
      return {
        field: 'approval.expiresIn',
        problem: `must be a Duration ("1h", "30m") or a positive whole number of milliseconds, got ${preview(e, { max: 40 })}`,
      };
    }
    policy.expiresInMs = ms;
  }
  const who = assigneesProblem(raw.assignees, 'approval.assignees');
  if (who) return { field: who.field, problem: `${who.problem}, got ${preview(who.value, { max: 40 })}` };
  const assignees = normalizeAssignees(raw.assignees as Assignees | undefined);
  if (assignees) policy.assignees = assignees;
  const n = raw.approvals;
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 20))
    return { field: 'approval.approvals', problem: `must be a whole number from 1 to 20, got ${preview(n, { max: 40 })}` };
  if (typeof n === 'number' && n > 1) policy.approvals = n;
  const followUps: FollowUps = {};
  for (const key of ['remindAfter', 'escalateAfter'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    const ms = typeof v === 'string' ? toMs(v) : v;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms <= 0 || ms > 2 ** 31 - 1)
      return {
        field: `approval.${key}`,
        problem: `must be a Duration ("1h", "30m") or a positive whole number of milliseconds, got ${preview(v, { max: 40 })}`,
      };
    followUps[`${key}Ms`] = ms;
  }
  const to = assigneesProblem(raw.escalateTo, 'approval.escalateTo');
  if (to) return { field: to.field, problem: `${to.problem}, got ${preview(to.value, { max: 40 })}` };
  const escalateTo = normalizeAssignees(raw.escalateTo as Assignees | undefined);
  if (escalateTo) followUps.escalateTo = escalateTo;
  if (Object.keys(followUps).length > 0) policy.followUps = followUps;
  return policy;
}

export function isPolicyProblem(v: ApprovalPolicy | PolicyProblem): v is PolicyProblem {
  return 'problem' in v;
}

/** `name` matches `pattern` (`*`: any run of characters, `?`: one). Linear backtracking on one star: no regex. */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A tool as its server lists it, as far as an approval needs it. */
export interface ApprovalTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/**
 * Whether a call of `tool` needs a person's approval under `policy`, and the call's own ask (`always`: more, never less).
 * Annotations count only under `annotations: "trust"`; a missing `readOnlyHint` is the worst case (not read-only).
 */
export function needsApproval(policy: ApprovalPolicy, tool: ApprovalTool, ask?: ApprovalAsk): boolean {
  if (ask === 'always') return true;
  if (policy.gate === 'never') return false;
  if (policy.tools && !policy.tools.some((g) => globMatch(g, tool.name))) return false;
  if (policy.except?.some((g) => globMatch(g, tool.name))) return false;
  if (policy.gate === 'always') return true;
  return !(policy.annotations === 'trust' && tool.annotations?.readOnlyHint === true);
}

/** The digest of a call's arguments: canonical JSON (keys sorted), FNV-1a 64. Equal arguments, equal digest. */
export function argumentsDigest(args: Record<string, unknown> | undefined): string {
  return fnv1a64(canonicalJson(args ?? {}));
}

/** The approval's request id: the call's stable id and the digest of the proposed arguments (asked once per both). */
export function approvalRequestId(callId: string, digest: string): string {
  return `${callId}.approve.${digest.slice(0, 12)}`;
}

/** A form of the tool's arguments, the proposed values as defaults; undefined when it is not admissible as an elicitation form. */
export function argumentsForm(inputSchema: Record<string, unknown> | undefined, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const props = isPlainObject(inputSchema?.properties) ? inputSchema.properties : {};
  if (Object.keys(props).length === 0) return undefined;
  const properties: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(props)) {
    if (!isPlainObject(prop)) return undefined;
    properties[name] = Object.hasOwn(args, name) ? { ...prop, default: args[name] } : prop;
  }
  const required = Array.isArray(inputSchema?.required) ? inputSchema.required : undefined;
  const form = { type: 'object', properties, ...(required ? { required } : {}) };
  return checkRequestedSchema(form).length === 0 ? form : undefined;
}

/** What a person sees of the tool beside its approval (the request's context). */
export interface ApprovalContext {
  title?: string;
  description?: string;
  annotations?: Record<string, unknown>;
  /** Whether the server's annotations are trusted by the config. */
  annotationsTrusted: boolean;
  /** The form edits the arguments (false: the arguments are shown read-only, accept approves them as proposed). */
  editable: boolean;
  /** The digest of the proposed arguments. */
  digest: string;
  /** Who may answer it, when the policy names them (else the call's assignees). */
  assignees?: Assignees;
  /** N of M, when the policy asks for more than one person. */
  approvals?: number;
  /** The policy's reminders and escalation (instead of the call's). */
  followUps?: FollowUps;
}

/** The approval a person answers: a Request of the seed contract, and its context. */
export function approvalRequest(
  call: { callId: string; server: string; arguments?: Record<string, unknown> },
  tool: ApprovalTool,
  policy: ApprovalPolicy,
): { request: Request; context: ApprovalContext } {
  const args = call.arguments ?? {};
  const digest = argumentsDigest(args);
  const form = argumentsForm(tool.inputSchema, args);
  const named = tool.title && tool.title !== tool.name ? `"${tool.title}" (${tool.name})` : `"${tool.name}"`;
  const what = tool.description ? ` It is asked to: ${cutText(tool.description, 200)}` : '';
  const check = form ? 'Check or edit the arguments, then approve or decline.' : 'Check the arguments, then approve or decline.';
  const prompt = `Allow server "${call.server}" to run tool ${named}?${what} ${check}`;
  const request: Request = { id: approvalRequestId(call.callId, digest), kind: 'input', prompt, data: { schema: form ?? { type: 'object', properties: {} } } };
  const context: ApprovalContext = { annotationsTrusted: policy.annotations === 'trust', editable: form !== undefined, digest };
  if (tool.title !== undefined) context.title = tool.title;
  if (tool.description !== undefined) context.description = cutText(tool.description, 500);
  if (tool.annotations !== undefined) context.annotations = tool.annotations;
  if (policy.assignees !== undefined) context.assignees = policy.assignees;
  if (policy.approvals !== undefined) context.approvals = policy.approvals;
  if (policy.followUps !== undefined) context.followUps = policy.followUps;
  return { request, context };
}

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The arguments an accepted approval approves: the answer's data (defaults applied: the proposed values a person left
 * alone) over the proposed arguments, when the form edits them; else the proposed arguments as they are.
 */
export function approvedArguments(proposed: Record<string, unknown> | undefined, answer: Answer, editable: boolean): Record<string, unknown> {
  const args = proposed ?? {};
  if (!editable || answer.data === undefined) return { ...args };
  return { ...args, ...answer.data };
}

/** How an approval ended. */
export type ApprovalStatus = 'approved' | 'declined' | 'expired' | 'cancelled';

export function approvalStatusOf(answer: Answer): ApprovalStatus {
  if (answer.ok) return 'approved';
  return answer.reason === 'declined' ? 'declined' : answer.reason === 'expired' ? 'expired' : 'cancelled';
}

/** Who answered and when (the host's record of a resolution). */
export interface ApprovalAnswered {
  id: string;
  by?: string;
  at?: string;
  /** Where `by` comes from, as the worker checked it (oidc, link, proxy, token, cli, claimed; docs/security.md "Who answered"). */
  source?: string;
  /** How strongly the worker knows who answered (issuer-verified, signed-link, proxy-header, inbox-token, claimed). */
  assurance?: string;
}

/** The metadata fields an approval adds to a call's result (docs/approvals.md). */
export function approvalMetadata(status: ApprovalStatus, answered: ApprovalAnswered, approved?: Record<string, unknown>): Record<string, unknown> {
  return {
    approval: status,
    approvalId: answered.id,
    ...(answered.by !== undefined ? { answeredBy: answered.by } : {}),
    ...(answered.source !== undefined ? { answeredVia: answered.source } : {}),
    ...(answered.assurance !== undefined ? { answeredAssurance: answered.assurance } : {}),
    ...(answered.at !== undefined ? { answeredAt: answered.at } : {}),
    ...(approved ? { approvedArguments: approved, approvedDigest: argumentsDigest(approved) } : {}),
  };
}

/**
 * The result of a call whose tool did not run (declined, expired, cancelled): `isError: true`, an output that says why,
 * and `metadata.approval` (never a workflow failure: a caller tells it apart from a tool's own error by that field).
 */
export function notApprovedResult(call: { server: string; tool: string }, status: Exclude<ApprovalStatus, 'approved'>, answered: ApprovalAnswered): ToolResult {
  const who = answered.by && !['expiry', 'workflow'].includes(answered.by) ? ` (${answered.by})` : '';
  const why =
    status === 'declined'
      ? `a person${who} declined to approve it`
      : status === 'expired'
        ? 'nobody approved it in time (the approval expired)'
        : 'its approval was cancelled';
  return {
    output: `Tool "${call.tool}" of server "${call.server}" did not run: ${why}.`,
    isError: true,
    metadata: approvalMetadata(status, answered),
  };
}
