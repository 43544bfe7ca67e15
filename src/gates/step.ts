/**
 * A gate's wait, as the call loop runs it (workflows/tool-call/index.ts): steps, each a condition to wait for or an
 * activity (or timer) to run, until `again` (run the activity again, with what the gate decided) or `result` (the call
 * ends). Opening a gate and each `then` are synchronous, and a `run` returns the promise of what it starts: every
 * `await` stays in the loop, so the commands and their order are those the recorded histories ran. Deterministic.
 */
import type { ToolResult } from '../contract/index.js';
import type { ElicitationHost } from '../workflows/host/index.js';
import type { CallOutcome } from '../workflows/tool-call/outcome.js';
import type { Approved } from './approval/messages.js';
import type { NextRound } from './round/messages.js';
import type { Gates, WaitingKind } from './table.js';

/** What a gate decided for the next run of the activity: approved arguments, or the next round's input (else: run again as before). */
export interface Again {
  approved?: Approved;
  next?: NextRound;
}

/** One step of a gate's wait. */
export type Step =
  { until: () => boolean; then: () => Step } | { run: () => Promise<unknown>; then: (value: unknown) => Step } | { again: Again } | { result: ToolResult };

/** A step that runs `start` (an activity, a timer, a helper's promise) and goes on with its value. */
export function run<T>(start: () => Promise<T>, then: (value: T) => Step): Step {
  return { run: start, then: then as (value: unknown) => Step };
}

/** The call a gate waits for: its input, the host, and the state its gates share across its runs. */
export interface GateContext {
  host: ElicitationHost;
  input: { server: string; tool: string; arguments?: Record<string, unknown>; heartbeatTimeout?: unknown; auth?: { principal?: string } };
  call: { callId: string; expiresInMs: number; continueAsNew?: () => boolean };
  /** The round about to run (1-based), the most rounds, the logins in a row, the approval the call runs with. */
  state: { round: number; maxRounds: number; logins: number; approved?: Approved };
}

/** The activity's outcome that opens gate `K`. */
export type OutcomeOf<K extends WaitingKind> = Extract<CallOutcome, { status: (typeof Gates)[K]['status'] }>;
/** How a call waits on one gate: open it on the activity's outcome (synchronously); the steps follow. */
export type GateWait<K extends WaitingKind> = (ctx: GateContext, outcome: OutcomeOf<K>) => Step;

/** Wait for one request of the call to be resolved (answered, expired or withdrawn), marked as what the call waits for. */
export function untilResolved(ctx: GateContext, id: string, then: () => Step): Step {
  ctx.host.waits.setWaiting(ctx.call.callId, id);
  return {
    until: () => ctx.host.requests.isResolved(id),
    then: () => {
      ctx.host.waits.setWaiting(ctx.call.callId, undefined);
      return then();
    },
  };
}
