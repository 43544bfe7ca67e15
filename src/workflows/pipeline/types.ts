/**
 * The types of `mcpPipeline`: its input (stages of named steps), each step's outcome, its result, and the state a
 * long pipeline carries across continue-as-new. The JSON shapes are recorded in histories (workflow inputs and
 * results): names may change, fields may not.
 */
import type { ToolResult } from '../../contract/index.js';
import type { NexusCaller } from '../../contract/requests.js';
import type { HostSnapshot } from '../host/index.js';
import type { ChildDone } from '../internal-messages.js';
import type { ExecuteMcpToolInput } from '../tool-call/index.js';

export type FailurePolicy = 'stop' | 'continue' | 'retry';

/**
 * A step is one tool call (the input of `executeMcpTool`) with a name. In `arguments`, a string
 * `"{{steps.fetch.output}}"` (or text containing it) is replaced by an earlier result, and
 * `{ "$ref": "steps.fetch.json.items.0" }` by a value from that step's output parsed as JSON.
 */
export interface PipelineStep extends ExecuteMcpToolInput {
  /** Unique step name; later steps refer to its result as `steps.<name>`. */
  name: string;
  /** What a failed step (isError result or failed activity) does: default the pipeline's `onFailure`. */
  onFailure?: FailurePolicy;
  /** For `retry`: how many times the step is run again before the pipeline stops (default 2). */
  retries?: number;
  /**
   * Run this call as a child workflow (`mcpToolCall`) instead of inline. Its requests are still pending on
   * the pipeline's id and answered there. Default: the pipeline's `childWorkflows`.
   */
  child?: boolean;
}

export type PipelineStage = PipelineStep | { parallel: PipelineStep[] };

export interface PipelineInput {
  steps: PipelineStage[];
  /** Default failure policy (default `stop`). */
  onFailure?: FailurePolicy;
  /** Run every step as a child workflow (default false: inline activities). */
  childWorkflows?: boolean;
  /** Continue-as-new once the history has this many events (default 10,000, or when Temporal suggests it). */
  maxHistoryEvents?: number;
  /** Set by the Nexus service (`runPipeline`, docs/nexus.md), never by its callers: who asked, shown with each step's requests. */
  caller?: NexusCaller;
  /** @internal carried across continue-as-new */
  state?: PipelineState;
}

export interface StepOutcome {
  status: 'completed' | 'failed';
  result?: ToolResult;
  error?: string;
  attempts: number;
}

export interface PipelineResult {
  status: 'completed' | 'stopped';
  steps: Record<string, StepOutcome>;
  /** Runs of the workflow (1 + continue-as-new count). */
  runs: number;
  /**
   * Steps that finished in earlier runs and that no later step refers to: counted here, not listed in `steps`
   * (a long pipeline carries into continue-as-new only what later steps can still use).
   */
  earlier?: { completed: number; failed: number };
}

export interface InFlight {
  callId: string;
  attempts: number;
  waitingFor?: string;
}

/** @internal */
export interface PipelineState {
  stage: number;
  outcomes: Record<string, StepOutcome>;
  inflight: Record<string, InFlight>;
  /** Child workflows of unfinished steps: step → child workflow id and attempt. */
  children?: Record<string, { workflowId: string; attempts: number }>;
  /** Results reported by children (signals), by child workflow id. */
  childDone?: Record<string, ChildDone>;
  host: HostSnapshot;
  runs: number;
  /** A step failed with policy stop (or retries used up) in the current stage. */
  stopped?: boolean;
  /** Finished steps of earlier runs that were not carried (see PipelineResult.earlier). */
  earlier?: { completed: number; failed: number };
}

/** The steps of a stage: its parallel group, or the one step. */
export function stageSteps(stage: PipelineStage): PipelineStep[] {
  return 'parallel' in stage ? stage.parallel : [stage];
}
