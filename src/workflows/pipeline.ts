/**
 * `mcpPipeline`: many MCP tool calls in one workflow, in sequence or in parallel groups, with one inbox.
 * Every step's elicitations are pending requests of the pipeline's own workflow id, listed with their
 * step by `pendingDetails`. Long pipelines continue-as-new, carrying pending requests, recorded answers
 * and the calls that wait for them; a resumed call attaches to the same requests (their ids are derived
 * from the call id, which is carried), so the human is asked once.
 */
import {
  CancellationScope,
  ParentClosePolicy,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  allHandlersFinished,
  condition,
  ContinueAsNew,
  continueAsNew,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { ToolResult } from '../contract/index.js';
import { utf8ByteLength } from '../contract/json.js';
import { useElicitationHost, type HostSnapshot } from './host/index.js';
import { inputProblem, invalidInput, problemMessage, stepInputProblem } from './input.js';
import { mcpToolCall } from './mcp-tool-call.js';
import { childDoneSignal, type ChildDone } from './messages.js';
import { runToolCall, type McpToolCallInput } from './tool-call.js';

export type FailurePolicy = 'stop' | 'continue' | 'retry';

/**
 * A step is one tool call (the `mcpToolCall` input) with a name. In `arguments`, a string
 * `"{{steps.fetch.output}}"` (or text containing it) is replaced by an earlier result, and
 * `{ "$ref": "steps.fetch.json.items.0" }` by a value from that step's output parsed as JSON.
 */
export interface PipelineStep extends McpToolCallInput {
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

interface InFlight {
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

const DEFAULT_MAX_HISTORY_EVENTS = 10_000;
/**
 * Largest continue-as-new input the pipeline sends: Temporal's default blob limit (2 MiB, payload framing
 * included) less a margin for that framing. At the limit itself, so that every continue-as-new that Temporal
 * accepted before this check still replays the same way.
 */
export const MAX_CARRY_BYTES = 2 * 1024 * 1024 - 64;

export { MAX_STEP_RETRIES } from './input.js';

function bad(message: string): never {
  invalidInput(`mcpPipeline: ${message}`);
}

function stageSteps(stage: PipelineStage): PipelineStep[] {
  return 'parallel' in stage ? stage.parallel : [stage];
}

function validate(input: PipelineInput): void {
  if (!input || !Array.isArray(input.steps) || input.steps.length === 0) bad('field "steps" must be a non-empty array');
  const strict = patched('durable-mcp:strict-step-checks');
  const seen = new Set<string>();
  if (input.maxHistoryEvents !== undefined && !(Number.isInteger(input.maxHistoryEvents) && input.maxHistoryEvents >= 8)) {
    bad(`field "maxHistoryEvents" must be an integer of at least 8, got ${JSON.stringify(input.maxHistoryEvents)}`);
  }
  input.steps.forEach((stage, i) => {
    if (!stage || typeof stage !== 'object' || Array.isArray(stage)) bad(`field "steps[${i}]" must be a step or { parallel: [...] }, got ${JSON.stringify(stage)}`);
    if ('parallel' in stage && (!Array.isArray(stage.parallel) || stage.parallel.length === 0)) bad(`field "steps[${i}].parallel" must be a non-empty array`);
    for (const step of stageSteps(stage)) {
      if (!step || typeof step.name !== 'string' || !step.name) bad(`field "steps[${i}].name" must be a non-empty string`);
      if (seen.has(step.name)) bad(`step name "${step.name}" is used twice`);
      seen.add(step.name);
      // The step's fields: the shared check (src/workflows/input.ts). (Versioned: pipelines started before the
      // strict checks replay as they ran.)
      const problem = stepInputProblem(step, strict);
      if (problem) bad(problem);
    }
  });
  const problem = inputProblem(input, ['onFailure']);
  if (problem) bad(problemMessage(problem));
}

/** Resolve `{{steps.x.output}}` and `{ $ref }` against earlier outcomes. */
export function resolveArguments(value: unknown, outcomes: Record<string, StepOutcome>, step: string): unknown {
  const lookup = (ref: string): unknown => {
    const parts = ref.trim().split('.');
    if (parts[0] !== 'steps' || parts.length < 3) bad(`step "${step}": reference "${ref}" must look like steps.<name>.output or steps.<name>.json.<path>`);
    const outcome = outcomes[parts[1]];
    if (!outcome) bad(`step "${step}": reference "${ref}" names step "${parts[1]}", which has not run before it`);
    if (outcome.status !== 'completed' || !outcome.result) bad(`step "${step}": reference "${ref}" names step "${parts[1]}", which failed`);
    const result = outcome.result;
    if (parts[2] === 'output' && parts.length === 3) return result.output;
    if (parts[2] === 'isError' && parts.length === 3) return result.isError;
    if (parts[2] !== 'json') bad(`step "${step}": reference "${ref}": after the step name use "output", "isError" or "json"`);
    let v: unknown;
    try {
      v = JSON.parse(result.output);
    } catch {
      bad(`step "${step}": reference "${ref}": the output of step "${parts[1]}" is not JSON`);
    }
    for (const key of parts.slice(3)) {
      if (v === null || typeof v !== 'object' || !(key in (v as object))) bad(`step "${step}": reference "${ref}": no "${key}" in the output of step "${parts[1]}"`);
      v = (v as Record<string, unknown>)[key];
    }
    return v;
  };
  if (typeof value === 'string') {
    const whole = value.match(/^\{\{\s*([^}]+?)\s*\}\}$/);
    if (whole) return lookup(whole[1]);
    return value.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_m, ref: string) => {
      const v = lookup(ref);
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveArguments(v, outcomes, step));
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if (typeof obj.$ref === 'string' && Object.keys(obj).length === 1) return lookup(obj.$ref);
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, resolveArguments(v, outcomes, step)]));
  }
  return value;
}

/** Names of the steps that `stages` refer to (`steps.<name>.…` in their arguments); a superset is harmless. */
export function referencedSteps(stages: PipelineStage[]): Set<string> {
  const names = new Set<string>();
  for (const stage of stages) {
    for (const step of stageSteps(stage)) {
      const text = JSON.stringify(step?.arguments ?? {});
      for (const m of text.matchAll(/steps\.([^.\s"}]+)/g)) names.add(m[1]);
    }
  }
  return names;
}

/**
 * The input of the next run, bounded: the stages from `stage` on (earlier ones are done), and of the finished
 * steps only those that a remaining step refers to or that belong to the remaining stages; the others are counted.
 */
function boundedNext(input: PipelineInput, state: PipelineState, stage: number, extra: Partial<PipelineState>): PipelineInput {
  const steps = input.steps.slice(stage);
  const keep = referencedSteps(steps);
  for (const st of steps) for (const step of stageSteps(st)) keep.add(step.name);
  const outcomes: Record<string, StepOutcome> = {};
  const earlier = { completed: state.earlier?.completed ?? 0, failed: state.earlier?.failed ?? 0 };
  for (const [name, outcome] of Object.entries(state.outcomes)) {
    if (keep.has(name)) outcomes[name] = outcome;
    else if (outcome.status === 'completed') earlier.completed++;
    else earlier.failed++;
  }
  return { ...input, steps, state: { ...state, ...extra, stage: 0, outcomes, earlier } };
}

export async function mcpPipeline(input: PipelineInput): Promise<PipelineResult> {
  validate(input);
  try {
    return await runPipeline(input);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // The run ends failed or cancelled: withdraw its own pending requests (the pending query and the search
    // attribute then say nobody is asked any more).
    // (Versioned: the histories of pipelines that failed before this did not withdraw their children's requests.)
    if (patched('durable-mcp:withdraw-on-close')) await CancellationScope.nonCancellable(async () => useElicitationHost().finishAll());
    // Children are abandoned on close (so they survive continue-as-new): a cancelled pipeline cancels them.
    if (isCancellation(err)) {
      const open = Object.values(input.state?.children ?? {}).map((c) => c.workflowId).concat(Object.values(liveChildren).map((c) => c.workflowId));
      await CancellationScope.nonCancellable(() =>
        Promise.all([...new Set(open)].map((id) => getExternalWorkflowHandle(id).cancel().catch(() => undefined))),
      );
    }
    throw err;
  }
}

let liveChildren: Record<string, { workflowId: string }> = {};

async function runPipeline(input: PipelineInput): Promise<PipelineResult> {
  const state: PipelineState = input.state ?? { stage: 0, outcomes: {}, inflight: {}, host: undefined as unknown as HostSnapshot, runs: 1 };
  const host = useElicitationHost(input.state?.host);
  state.children ??= {};
  state.childDone ??= {};
  const children = state.children;
  liveChildren = children;
  const childDone = state.childDone;
  setHandler(childDoneSignal, (done: ChildDone) => {
    childDone[done.child] = done;
  });
  const maxEvents = input.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS;
  // Set once the state to carry no longer fits one payload: the pipeline then finishes in this run.
  let carryTooLarge = false;
  const shouldContinueAsNew = () => !carryTooLarge && (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= maxEvents);
  /** Whether `next` fits the continue-as-new input payload; if not, say so once and stop trying. */
  const fits = (next: PipelineInput): boolean => {
    const bytes = utf8ByteLength(JSON.stringify(next));
    if (bytes <= MAX_CARRY_BYTES) return true;
    carryTooLarge = true;
    log.warn('mcpPipeline: not continuing as new: the state to carry (inputs, step results, answers) is too large for one payload; the pipeline goes on in this run', { bytes, limit: MAX_CARRY_BYTES });
    return false;
  };

  for (; state.stage < input.steps.length; state.stage++) {
    const steps = stageSteps(input.steps[state.stage]).filter((s) => !state.outcomes[s.name]);
    const stop = () => {
      state.stopped = true;
    };
    const runStep = async (step: PipelineStep): Promise<void> => {
      const policy = step.onFailure ?? input.onFailure ?? 'stop';
      const maxAttempts = policy === 'retry' ? 1 + (step.retries ?? 2) : 1;
      if (step.child ?? input.childWorkflows) return runChildStep(step, policy, maxAttempts);
      const callFor = (callId?: string) =>
        host.newCall({ server: step.server, tool: step.tool, step: step.name, expiresInMs: step.elicitation?.expiresIn, holdForMs: step.elicitation?.holdFor }, callId).callId;
      let flight = state.inflight[step.name];
      for (;;) {
        if (!flight) {
          flight = { callId: callFor(), attempts: 1 };
          state.inflight[step.name] = flight;
        } else {
          callFor(flight.callId);
        }
        let outcome: StepOutcome;
        try {
          const args = resolveArguments(step.arguments ?? {}, state.outcomes, step.name) as Record<string, unknown>;
          const result = await runToolCall(
            host,
            { server: step.server, tool: step.tool, arguments: args, elicitation: step.elicitation, toolTimeout: step.toolTimeout, heartbeatTimeout: step.heartbeatTimeout, maxAttempts: step.maxAttempts, ...(step.maxRounds !== undefined ? { maxRounds: step.maxRounds } : {}) },
            { step: step.name, callId: flight.callId, resumeAfter: flight.waitingFor },
          );
          outcome = { status: result.isError ? 'failed' : 'completed', result, attempts: flight.attempts, ...(result.isError ? { error: result.output } : {}) };
        } catch (err) {
          outcome = { status: 'failed', error: (err as Error).message, attempts: flight.attempts };
        }
        if (outcome.status === 'completed' || policy !== 'retry' || flight.attempts >= maxAttempts) {
          state.outcomes[step.name] = outcome;
          delete state.inflight[step.name];
          if (outcome.status === 'failed' && policy !== 'continue') stop();
          return;
        }
        // Retry: a new call (new call id), so a retried step asks afresh.
        flight = { callId: callFor(), attempts: flight.attempts + 1 };
        state.inflight[step.name] = flight;
      }
    };

    const runChildStep = async (step: PipelineStep, policy: FailurePolicy, maxAttempts: number): Promise<void> => {
      let attemptsSoFar = 0;
      for (;;) {
        let child = children[step.name];
        let sameRun: Promise<ChildDone> | undefined;
        if (!child) {
          const attempts = attemptsSoFar + 1;
          child = { workflowId: `${workflowInfo().workflowId}/${step.name}/${attempts}`, attempts };
          let args: Record<string, unknown>;
          try {
            args = resolveArguments(step.arguments ?? {}, state.outcomes, step.name) as Record<string, unknown>;
          } catch (err) {
            // A bad reference fails the step, as it does inline.
            state.outcomes[step.name] = { status: 'failed', error: (err as Error).message, attempts };
            if (policy !== 'continue') stop();
            return;
          }
          // Recorded before the start, so a continue-as-new never loses a started child.
          children[step.name] = child;
          const handle = await startChild(mcpToolCall, {
            workflowId: child.workflowId,
            taskQueue: workflowInfo().taskQueue,
            // The child outlives a continue-as-new of the pipeline; it reports back by signal.
            parentClosePolicy: ParentClosePolicy.ABANDON,
            args: [
              {
                server: step.server,
                tool: step.tool,
                arguments: args,
                elicitation: step.elicitation,
                toolTimeout: step.toolTimeout,
                heartbeatTimeout: step.heartbeatTimeout,
                maxAttempts: step.maxAttempts,
                ...(step.maxRounds !== undefined ? { maxRounds: step.maxRounds } : {}),
                reportTo: { workflowId: workflowInfo().workflowId, step: step.name, callIdPrefix: `${step.name}-${child.attempts}.` },
              },
            ],
          });
          const id = child.workflowId;
          // In this run, a child that fails without reporting (e.g. terminated) still ends the step.
          sameRun = handle.result().then(
            (result) => ({ child: id, step: step.name, result }),
            (err: Error) => ({ child: id, step: step.name, error: (err.cause as Error | undefined)?.message ?? err.message }),
          );
        }
        const id = child.workflowId;
        let fromHandle: ChildDone | undefined;
        void sameRun?.then((d) => {
          fromHandle = d;
        });
        await condition(() => childDone[id] !== undefined || fromHandle !== undefined);
        const done = childDone[id] ?? fromHandle!;
        delete children[step.name];
        delete childDone[id];
        host.forgetChild(id);
        const failed = !done.result || done.result.isError;
        const outcome: StepOutcome = { status: failed ? 'failed' : 'completed', attempts: child.attempts, ...(done.result ? { result: done.result } : {}), ...(failed ? { error: done.error ?? done.result?.output ?? 'failed' } : {}) };
        if (!failed || policy !== 'retry' || child.attempts >= maxAttempts) {
          state.outcomes[step.name] = outcome;
          if (failed && policy !== 'continue') stop();
          return;
        }
        attemptsSoFar = child.attempts;
      }
    };

    let done = false;
    let stageError: unknown;
    const all = Promise.all(steps.map(runStep)).then(
      () => {
        done = true;
      },
      (err) => {
        // A bad reference or option thrown outside a call: end the stage (and the pipeline) with that error.
        stageError = err;
        done = true;
      },
    );
    // Wait for the stage, or continue-as-new when history is long and every unfinished call only waits for a human.
    const unfinishedAllWaiting = () => {
      const names = Object.keys(state.inflight);
      const inlineWaiting = names.every((n) => host.waitingFor(state.inflight[n].callId) !== undefined);
      return names.length + Object.keys(children).length > 0 && inlineWaiting;
    };
    for (;;) {
      await condition(() => done || (shouldContinueAsNew() && unfinishedAllWaiting()));
      if (done) break;
      host.close();
      await condition(allHandlersFinished);
      // A handler may have resolved a request meanwhile (its call now runs again): only continue while all wait.
      if (done || !unfinishedAllWaiting()) {
        host.reopen();
        continue;
      }
      for (const flight of Object.values(state.inflight)) flight.waitingFor = host.waitingFor(flight.callId);
      const next: PipelineInput = host.bounded
        ? boundedNext(input, state, state.stage, { host: host.snapshot(), runs: state.runs + 1 })
        : { ...input, state: { ...state, host: host.snapshot(), runs: state.runs + 1 } };
      if (fits(next)) await continueAsNew<typeof mcpPipeline>(next);
      host.reopen();
    }
    await all;
    if (stageError) {
      host.close();
      throw stageError;
    }
    if (state.stopped) {
      host.close();
      await condition(allHandlersFinished);
      return { status: 'stopped', steps: state.outcomes, runs: state.runs, ...(state.earlier ? { earlier: state.earlier } : {}) };
    }
    // Between stages: continue-as-new if the history is long.
    if (state.stage + 1 < input.steps.length && shouldContinueAsNew()) {
      host.close();
      await condition(allHandlersFinished);
      const next: PipelineInput = host.bounded
        ? boundedNext(input, state, state.stage + 1, { inflight: {}, childDone: {}, host: host.snapshot(), runs: state.runs + 1 })
        : { ...input, state: { ...state, stage: state.stage + 1, inflight: {}, childDone: {}, host: host.snapshot(), runs: state.runs + 1 } };
      if (fits(next)) await continueAsNew<typeof mcpPipeline>(next);
      host.reopen();
    }
  }
  host.close();
  await condition(allHandlersFinished);
  return { status: 'completed', steps: state.outcomes, runs: state.runs, ...(state.earlier ? { earlier: state.earlier } : {}) };
}
