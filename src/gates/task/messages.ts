/**
 * The task gate's messages (MCP Tasks, 2026-07-28 extension, docs/tasks.md): the activity's outcome that opens it, the
 * inputs of `watchMcpTask` and `cancelMcpTask` (JSON shapes recorded in histories: they never change), and its share of
 * the snapshot: the task's state between two watches, carried across continue-as-new (the snapshot's `tasks`) so the
 * next run goes on watching the same task (never a second `tools/call`) and waits for the same questions. Pure types:
 * the wait is ./workflow.ts.
 */
import type { CallMcpToolLoginRequired } from '../login/messages.js';
import type { RoundKey } from '../round/messages.js';
import type { WorkerFeatures } from '../../contract/worker-features.js';

export interface TaskWait {
  /** The server's task as the last watch saw it (its id first). */
  task: TaskHandle;
  /** Workflow time (ms) past which the task is expired: its `ttlMs` from when the workflow learned of it. Absent: none. */
  deadline?: number;
  /** Every input request key the task asked (keys are unique over a task's lifetime): each is asked once. */
  asked: string[];
  /** The number of the task's last round of questions (0: none yet). */
  round: number;
  /** The questions of that round while they wait for answers, or answered and not yet sent (`tasks/update`). */
  requests?: RoundKey[];
  /** Metadata the result gets (who approved the call, with which arguments: docs/approvals.md). */
  metadata?: Record<string, unknown>;
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

/** The input of `cancelMcpTask`. */
export interface CancelMcpTaskInput {
  server: string;
  taskId: string;
  principal?: string;
}
