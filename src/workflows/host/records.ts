/**
 * The request registry's records (a call, a pending request, a resolved one) and their small helpers: the id an
 * answer names, when a request expires, text cut to a length, a call's arguments as shown. Pure.
 */
import type { ApprovalContext } from '../../contract/approval.js';
import type { Assignees } from '../../contract/assignees.js';
import type { Answer, Request } from '../../contract/index.js';
import { ARGUMENTS_SHOWN, type PendingContext } from '../messages.js';
import type { SenderRecord } from './sender.js';

/** Default time a request may stay unanswered before it expires into `cancel`. */
export const DEFAULT_EXPIRES_IN_MS = 24 * 60 * 60 * 1000;

/** The id an answer names, if it names one. */
export function answerId(raw: unknown): unknown {
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
}

/** When a recorded request expires (workflow time, ms). */
export function expiresAtOf(request: Request, now = Date.now()): number {
  return request.expiresAt ? Date.parse(request.expiresAt) : now + DEFAULT_EXPIRES_IN_MS;
}

/** `text` cut to `max` characters, with "…" when it was longer. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface CallRecord extends Omit<PendingContext, 'askedAt'> {
  expiresInMs: number;
  holdForMs: number;
  /** Reminders and escalation of the call's requests (docs/people.md). */
  remindAfterMs?: number;
  escalateAfterMs?: number;
  escalateTo?: Assignees;
  /** N of M: distinct people who must accept each request. */
  requiredApprovals?: number;
}

/** A pending request, with the call that asked it. */
export interface PendingRecord {
  request: Request;
  callId: string;
  /** Workflow time (ms) when the request was recorded (for the time-to-answer metric). */
  since?: number;
  /** An approval (docs/approvals.md): the tool as a person sees it beside the request. */
  approval?: ApprovalContext;
  /** A reminder was sent (docs/people.md). */
  reminded?: true;
  /** It was escalated: who was added to its assignees. */
  escalated?: Assignees;
  /** N of M: who accepted so far, and the answer they accepted (canonical JSON of its data). */
  accepts?: { by: string[]; data: string; people?: string[]; weakest?: SenderRecord };
}

/** A resolved request: its answer, its call, and who resolved it when (workflow time, ISO 8601). */
export interface ResolvedRecord {
  answer: Answer;
  callId: string;
  by?: string;
  at?: string;
  /** Where `by` comes from, as the worker checked it (docs/security.md "Who answered"): a proved source, cli, or claimed. */
  source?: string;
  /** With `source: "claimed"`: the source the sender named and did not prove. */
  claimed?: string;
  /** How strongly the worker knows who answered (./sender.ts ASSURANCES, or claimed). */
  assurance?: string;
}

/** A call's arguments as the memo shows them: JSON, cut to ARGUMENTS_SHOWN characters. */
export function argumentsShown(args: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = '(arguments that are not JSON)';
  }
  return cut(text, ARGUMENTS_SHOWN);
}
