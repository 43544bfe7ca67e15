import type { DurableMcpActivities } from '../../contract/activities.js';
/**
 * The activity `callMcpTool` as the call loop sees it: its proxy type and the outcomes it returns, by kind. Types
 * only (the activity's code never enters the workflow bundle).
 */

/** What one attempt of the activity returns (`regular` is an inline attempt's only, handled where it runs). */
export type CallOutcome = Exclude<Awaited<ReturnType<DurableMcpActivities['callMcpTool']>>, { status: 'regular' }>;
/** The call was released (legacy era): the request it waits for, with nothing held. */
export type ReleasedOutcome = Extract<CallOutcome, { status: 'released' }>;
/** The server needs input first (a modern-era round, or the legacy `-32042` form): the round's requests. */
export type InputRequiredOutcome = Extract<CallOutcome, { status: 'input_required' }>;
/** The policy (or the call) wants a person's approval first: nothing ran. */
export type ApprovalRequiredOutcome = Extract<CallOutcome, { status: 'approval_required' }>;
