/**
 * The registry of workflow versions: every `patched()` id of durable-mcp's workflows, in this one module (in the style
 * of `@temporalio/workflow`'s `flags.ts`). A workflow asks `since(Versions.X)`, never `patched('…')` itself
 * (test/workflows/replay.test.ts checks it).
 *
 * The rule (docs/architecture.md, "Versions"): a change to the commands a workflow emits (an activity, a timer, a
 * signal, a memo or search attribute upsert, a child, their order) adds one entry here, with since when and what
 * older histories did, and one recorded history under test/histories of a run on the new code; the older histories
 * stay committed and replay through the entry's old branch. An entry goes once no history it guards can still be
 * open (then its id goes to RETIRED_VERSION_IDS, never to be reused).
 *
 * Five entries today (followUps, taskContinueAsNew, answerProof, taskWatchEndsWait, agentFastPath), all added since issue 30: then, the package never
 * released, the histories were re-recorded from the code of the day and the eight entries before were dropped with
 * the branches only the older histories needed.
 * Deterministic: workflow APIs only.
 */
import { patched } from '@temporalio/workflow';

/** One change to workflow commands that older histories did not make. */
export interface WorkflowVersion {
  /** The marker recorded in history (`durable-mcp:<what changed>`); never reused, even once retired. */
  readonly id: string;
  /** Since when: the date and the change that introduced it (a commit or an issue). */
  readonly since: string;
  /** What histories recorded before it did instead (the branch `since()` false keeps). */
  readonly before: string;
}

/** Every version in force, by name. Add one entry per change to workflow commands (see the rule above). */
export const Versions = {
  /** Reminders and escalation of a request (a call's `elicitation.remindAfter` / `escalateAfter`; issue 35). */
  followUps: {
    id: 'durable-mcp:request-follow-ups',
    since: '2026-12-04, issue 35 (reminders and escalation)',
    before: 'no timer and no notification after the first one (the option did not exist, so no older history asks)',
  },
  /** A call following an MCP task may continue as new between watches and while its questions wait (issue 34). */
  taskContinueAsNew: {
    id: 'durable-mcp:task-continue-as-new',
    since: '2026-12-04, issue 34 (a task carried across continue-as-new)',
    before: 'a task was watched in one run to its end: no continue-as-new while it worked or its questions waited',
  },
  /**
   * An answer whose sender names a source stronger than `cli` with a proof runs the `checkAnswerProof` local activity
   * before it is counted or recorded (issue 40: a source a sender claims without proof is recorded as claimed).
   */
  answerProof: {
    id: 'durable-mcp:answer-proof',
    since: '2026-12-05, issue 40 (a claimed source is recorded as claimed)',
    before: 'no local activity: the answer was taken in its handler at once, its source recorded as named (replayed now as claimed)',
  },
  /**
   * A call resumed (after continue-as-new) with its task's wait stops waiting when it watches the task again: the run
   * no longer continues as new while that watch runs, which sent the task's answers again from the next run.
   */
  taskWatchEndsWait: {
    id: 'durable-mcp:task-watch-ends-wait',
    since: '2026-12-05, issue 42 (found by tasks-continue under load: an answer sent to a task server 4 times)',
    before: 'the restored wait stayed set during the first watch: the run could continue as new while the watch ran',
  },
  /**
   * `durableMcpTools` lists each server in a local activity (`listMcpTools` with `hints`; a login falls back to the
   * `mcpListTools` loop), and the first attempt of a call of a tool the listing marks `inline` (a 2026-07-28 session,
   * no OAuth, not asking the old way, no approval asked by the agent) runs as a local activity (issue 43, B12).
   */
  agentFastPath: {
    id: 'durable-mcp:agent-fast-path',
    since: '2026-12-06, issue 43 (B12: an agent step against TemporalMCPClient)',
    before: 'each listing ran the listMcpTools activity (mcpListTools) and every call attempt the callMcpTool activity',
  },
} as const satisfies Record<string, WorkflowVersion>;

/**
 * Ids dropped when the histories that needed them were re-recorded (2026-12-02, issue 30): a new entry takes a new
 * id, never one of these (a run recorded with such a marker would take the new branch on replay).
 */
export const RETIRED_VERSION_IDS = [
  'durable-mcp:one-timer-inline',
  'durable-mcp:bounded-state',
  'durable-mcp:listing-memo',
  'durable-mcp:notify-pending',
  'durable-mcp:withdraw-on-failure',
  'durable-mcp:withdraw-on-close',
  'durable-mcp:strict-step-checks',
  'durable-mcp:list-tools-login',
] as const;

/**
 * Whether this run takes the path of `version` (true for a new run and for a history recorded since it; false while
 * a history recorded before it replays). Ask once per run where the answer must hold for the whole run: `patched`
 * answers false while an older run replays and true once that run goes on live on this code.
 */
export function since(version: WorkflowVersion): boolean {
  return patched(version.id);
}
