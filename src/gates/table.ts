/**
 * The gates of a tool call (docs/architecture.md "Gates"): what a call waits on between two runs of its activity
 * `callMcpTool`. The activity returns `completed`, or the outcome of one gate (its `status`, recorded in histories:
 * it never changes); the workflow lets that gate's row wait, then runs the activity again (or ends the call). The
 * question gate is the one a call waits on *during* a run (an `elicitation/create` on the live session, the `elicit`
 * update): it has no outcome of its own; a question given up becomes the release gate's. Pure data, like versions.ts.
 */

/** One row: the outcome status that opens the gate, when the activity finds it, and what of it a snapshot carries. */
export interface GateRow {
  /** The activity's outcome that opens the gate (undefined: the question gate, which has none). */
  status: 'approval_required' | 'login_required' | 'input_required' | 'task' | 'released' | undefined;
  /** When an attempt of the activity finds it. */
  phase: 'before-call' | 'before-lease-or-on-error' | 'after-round' | 'during-call';
  /** The key of the host's snapshot that carries the gate's wait across continue-as-new (undefined: none, or its request). */
  snapshot?: 'rounds' | 'tasks' | 'waitingFor';
}

/** The gates, by kind. Adding a gate is one row here and one wait in ./waits.ts (the compiler asks for it). */
export const Gates = {
  /** A person approves the call before the tool runs (docs/approvals.md). */
  approval: { status: 'approval_required', phase: 'before-call' },
  /** A server behind OAuth needs a (new) token: its login settles first (docs/oauth.md). */
  login: { status: 'login_required', phase: 'before-lease-or-on-error' },
  /** The server asked in a round (MCP 2026-07-28 `input_required`, or the legacy `-32042` form): its answers, then the next round. */
  round: { status: 'input_required', phase: 'after-round', snapshot: 'rounds' },
  /** The server asks during the call (`elicitation/create`): answered from the record, or held up to `holdFor`. */
  question: { status: undefined, phase: 'during-call' },
  /** The server made the call an MCP task: the task is followed until it ends (docs/tasks.md). */
  task: { status: 'task', phase: 'after-round', snapshot: 'tasks' },
  /** A question was given up (hold expired, the server gave up, a shutdown): its answer, then the call runs again. */
  release: { status: 'released', phase: 'during-call', snapshot: 'waitingFor' },
} as const satisfies Record<string, GateRow>;

export type GateKind = keyof typeof Gates;
/** The gates an outcome opens (all but the question's). */
export type WaitingKind = { [K in GateKind]: (typeof Gates)[K]['status'] extends undefined ? never : K }[GateKind];
/** The outcome status of each waiting gate. */
export type WaitingStatus = (typeof Gates)[WaitingKind]['status'];

const BY_STATUS = new Map<string, WaitingKind>(
  (Object.keys(Gates) as GateKind[]).flatMap((k) => (Gates[k].status === undefined ? [] : [[Gates[k].status, k as WaitingKind] as const])),
);

/** The gate an outcome status opens. */
export function gateOf(status: WaitingStatus): WaitingKind {
  const kind = BY_STATUS.get(status);
  if (!kind) throw new TypeError(`no gate opens on the outcome status "${status}"`);
  return kind;
}
