/**
 * The task gate's share of the snapshot (MCP Tasks, 2026-07-28 extension, docs/tasks.md): the task's state between
 * two watches, carried across continue-as-new (the snapshot's `tasks`) so the next run goes on watching the same task
 * (never a second `tools/call`) and waits for the same questions. Pure types: the wait is ./workflow.ts.
 */
import type { RoundKey } from '../round/messages.js';
import type { TaskHandle } from '../../contract/activities.js';

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
