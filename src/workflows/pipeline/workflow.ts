/**
 * `mcpPipeline`: many MCP tool calls in one workflow, in sequence or in parallel groups, with one inbox.
 * Every step's elicitations are pending requests of the pipeline's own workflow id, listed with their
 * step by `pendingDetails`. Long pipelines continue-as-new, carrying pending requests, recorded answers
 * and the calls that wait for them; a resumed call attaches to the same requests (their ids are derived
 * from the call id, which is carried), so the human is asked once.
 */
import {
  CancellationScope,
  ContinueAsNew,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { utf8ByteLength } from '../../contract/json.js';
import type { ElicitationHost, HostSnapshot } from '../host/index.js';
import { installElicitationHost } from '../host/install.js';
import { continueAsNewWhenIdle, untilIdle } from '../idle.js';
import { mcpToolCall } from '../mcp-tool-call.js';
import { childDoneSignal, type ChildDone } from '../internal-messages.js';
import { executeMcpTool, newCallOf, type ExecuteMcpToolInput } from '../tool-call/index.js';
import { boundedNext, MAX_CARRY_BYTES } from './carry.js';
import { validatePipelineInput } from './input-check.js';
import { resolveArguments } from './templating.js';
import { stageSteps, type FailurePolicy, type PipelineInput, type PipelineResult, type PipelineState, type PipelineStep, type StepOutcome } from './types.js';

/** Continue-as-new once the history has this many events (unless the input says otherwise). */
const DEFAULT_MAX_HISTORY_EVENTS = 10_000;

/** The workflow `mcpPipeline`: many tool calls, in sequence or parallel groups, with one inbox (docs/workflows.md). */
export async function mcpPipeline(input: PipelineInput): Promise<PipelineResult> {
  validatePipelineInput(input);
  const run = new PipelineRun(input, installElicitationHost(input.state?.host));
  try {
    return await run.run();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // The run ends failed or cancelled: withdraw its own pending requests (the pending query and the search
    // attribute then say nobody is asked any more).
    await CancellationScope.nonCancellable(async () => run.host.finishAll());
    // Children are abandoned on close (so they survive continue-as-new): a cancelled pipeline cancels them.
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        Promise.all(
          run.openChildren().map((id) =>
            getExternalWorkflowHandle(id)
              .cancel()
              .catch(() => undefined),
          ),
        ),
      );
    }
    throw err;
  }
}

/** The tool call of a step, with its arguments resolved (the same input inline and as a child's `mcpToolCall`). */
function stepCall(step: PipelineStep, args: Record<string, unknown>): ExecuteMcpToolInput {
  return {
    server: step.server,
    tool: step.tool,
    arguments: args,
    elicitation: step.elicitation,
    toolTimeout: step.toolTimeout,
    heartbeatTimeout: step.heartbeatTimeout,
    maxAttempts: step.maxAttempts,
    ...(step.maxRounds !== undefined ? { maxRounds: step.maxRounds } : {}),
    // A server behind OAuth with per-call principals: whose login the step uses (absent: the input is as it was).
    ...(step.auth !== undefined ? { auth: step.auth } : {}),
    // A step that asks for a person's approval whatever the policy (docs/approvals.md).
    ...(step.approval !== undefined ? { approval: step.approval } : {}),
    // Who may answer the step's requests (docs/people.md).
    ...(step.assignees !== undefined ? { assignees: step.assignees } : {}),
    ...(step.approvals !== undefined ? { approvals: step.approvals } : {}),
  };
}

/** One run of a pipeline: its state (carried across continue-as-new), its host, and the steps of the current stage. */
class PipelineRun {
  private readonly state: PipelineState;
  private readonly children: NonNullable<PipelineState['children']>;
  private readonly childDone: NonNullable<PipelineState['childDone']>;
  private readonly maxEvents: number;
  /** Set once the state to carry no longer fits one payload: the pipeline then finishes in this run. */
  private carryTooLarge = false;

  constructor(
    private readonly input: PipelineInput,
    readonly host: ElicitationHost,
  ) {
    this.state = input.state ?? { stage: 0, outcomes: {}, inflight: {}, host: undefined as unknown as HostSnapshot, runs: 1 };
    this.children = this.state.children ??= {};
    this.childDone = this.state.childDone ??= {};
    this.maxEvents = input.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS;
    setHandler(childDoneSignal, (done: ChildDone) => {
      this.childDone[done.child] = done;
    });
  }

  /** The child workflows of unfinished steps (a cancelled pipeline cancels them). */
  openChildren(): string[] {
    return [...new Set(Object.values(this.children).map((c) => c.workflowId))];
  }

  async run(): Promise<PipelineResult> {
    const { input, state } = this;
    for (; state.stage < input.steps.length; state.stage++) {
      await this.runStage(stageSteps(input.steps[state.stage]).filter((s) => !state.outcomes[s.name]));
      if (state.stopped) {
        await untilIdle(this.host);
        return this.result('stopped');
      }
      // Between stages: continue-as-new if the history is long.
      if (state.stage + 1 < input.steps.length && this.historyLong()) {
        await continueAsNewWhenIdle<typeof mcpPipeline>(this.host, () =>
          this.fitting(boundedNext(input, state, state.stage + 1, { inflight: {}, childDone: {}, host: this.host.snapshot(), runs: state.runs + 1 })),
        );
      }
    }
    await untilIdle(this.host);
    return this.result('completed');
  }

  private result(status: PipelineResult['status']): PipelineResult {
    const { state } = this;
    return { status, steps: state.outcomes, runs: state.runs, ...(state.earlier ? { earlier: state.earlier } : {}) };
  }

  /** Run a stage's steps at once; meanwhile continue-as-new when history is long and every unfinished call only waits for a human. */
  private async runStage(steps: PipelineStep[]): Promise<void> {
    const { state, host } = this;
    let done = false;
    let stageError: unknown;
    const all = Promise.all(steps.map((step) => this.runStep(step))).then(
      () => {
        done = true;
      },
      (err) => {
        // A bad reference or option thrown outside a call: end the stage (and the pipeline) with that error.
        stageError = err;
        done = true;
      },
    );
    const unfinishedAllWaiting = () => {
      const names = Object.keys(state.inflight);
      const inlineWaiting = names.every((n) => host.waits.waitingFor(state.inflight[n].callId) !== undefined);
      return names.length + Object.keys(this.children).length > 0 && inlineWaiting;
    };
    for (;;) {
      await condition(() => done || (this.historyLong() && unfinishedAllWaiting()));
      if (done) break;
      // A handler may have resolved a request meanwhile (its call now runs again): only continue while all wait.
      await continueAsNewWhenIdle<typeof mcpPipeline>(host, () => {
        if (done || !unfinishedAllWaiting()) return undefined;
        for (const flight of Object.values(state.inflight)) flight.waitingFor = host.waits.waitingFor(flight.callId);
        return this.fitting(boundedNext(this.input, state, state.stage, { host: host.snapshot(), runs: state.runs + 1 }));
      });
    }
    await all;
    if (stageError) {
      host.answerWatchersNow();
      throw stageError;
    }
  }

  /** The history is long enough to continue as new (unless the state to carry is too large for that). */
  private historyLong(): boolean {
    return !this.carryTooLarge && (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= this.maxEvents);
  }

  /** `next` if it fits the continue-as-new input payload; if not, say so once and stop trying. */
  private fitting(next: PipelineInput): PipelineInput | undefined {
    const bytes = utf8ByteLength(JSON.stringify(next));
    if (bytes <= MAX_CARRY_BYTES) return next;
    this.carryTooLarge = true;
    log.warn(
      'mcpPipeline: not continuing as new: the state to carry (inputs, step results, answers) is too large for one payload; the pipeline goes on in this run',
      { bytes, limit: MAX_CARRY_BYTES },
    );
    return undefined;
  }

  private async runStep(step: PipelineStep): Promise<void> {
    const policy = step.onFailure ?? this.input.onFailure ?? 'stop';
    const maxAttempts = policy === 'retry' ? 1 + (step.retries ?? 2) : 1;
    if (step.child ?? this.input.childWorkflows) return this.runChildStep(step, policy, maxAttempts);
    return this.runInlineStep(step, policy, maxAttempts);
  }

  /** The step's outcome is final: record it, and stop the pipeline if it failed and its policy says so. */
  private finish(step: PipelineStep, outcome: StepOutcome, policy: FailurePolicy): void {
    this.state.outcomes[step.name] = outcome;
    if (outcome.status === 'failed' && policy !== 'continue') this.state.stopped = true;
  }

  /** A step run inline: its call on this workflow's host, retried (a new call id, so it asks afresh) as its policy says. */
  private async runInlineStep(step: PipelineStep, policy: FailurePolicy, maxAttempts: number): Promise<void> {
    const { state, host } = this;
    const callFor = (callId?: string) =>
      // The step's arguments come later, resolved from its templates (a second registration adds them).
      // Who asked (a pipeline started through the Nexus service) goes with each step's requests.
      host.requests.newCall(newCallOf({ ...step, arguments: undefined, caller: this.input.caller }, step.name), callId).callId;
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
        const result = await executeMcpTool(stepCall(step, args), { step: step.name, callId: flight.callId, resumeAfter: flight.waitingFor });
        outcome = { status: result.isError ? 'failed' : 'completed', result, attempts: flight.attempts, ...(result.isError ? { error: result.output } : {}) };
      } catch (err) {
        outcome = { status: 'failed', error: (err as Error).message, attempts: flight.attempts };
      }
      if (outcome.status === 'completed' || policy !== 'retry' || flight.attempts >= maxAttempts) {
        delete state.inflight[step.name];
        this.finish(step, outcome, policy);
        return;
      }
      // Retry: a new call (new call id), so a retried step asks afresh.
      flight = { callId: callFor(), attempts: flight.attempts + 1 };
      state.inflight[step.name] = flight;
    }
  }

  /** A step run as a child workflow (`mcpToolCall` reporting to this one), retried (a new child) as its policy says. */
  private async runChildStep(step: PipelineStep, policy: FailurePolicy, maxAttempts: number): Promise<void> {
    let attemptsSoFar = 0;
    for (;;) {
      let child = this.children[step.name];
      let sameRun: Promise<ChildDone> | undefined;
      if (!child) {
        const attempts = attemptsSoFar + 1;
        child = { workflowId: `${workflowInfo().workflowId}/${step.name}/${attempts}`, attempts };
        let args: Record<string, unknown>;
        try {
          args = resolveArguments(step.arguments ?? {}, this.state.outcomes, step.name) as Record<string, unknown>;
        } catch (err) {
          // A bad reference fails the step, as it does inline.
          this.finish(step, { status: 'failed', error: (err as Error).message, attempts }, policy);
          return;
        }
        // Recorded before the start, so a continue-as-new never loses a started child.
        this.children[step.name] = child;
        sameRun = (await this.startChildStep(step, child, args)).done;
      }
      const id = child.workflowId;
      let fromHandle: ChildDone | undefined;
      void sameRun?.then((d) => {
        fromHandle = d;
      });
      await condition(() => this.childDone[id] !== undefined || fromHandle !== undefined);
      const done = this.childDone[id] ?? fromHandle!;
      delete this.children[step.name];
      delete this.childDone[id];
      this.host.children.forgetChild(id);
      const failed = !done.result || done.result.isError;
      const outcome: StepOutcome = {
        status: failed ? 'failed' : 'completed',
        attempts: child.attempts,
        ...(done.result ? { result: done.result } : {}),
        ...(failed ? { error: done.error ?? done.result?.output ?? 'failed' } : {}),
      };
      if (!failed || policy !== 'retry' || child.attempts >= maxAttempts) {
        this.finish(step, outcome, policy);
        return;
      }
      attemptsSoFar = child.attempts;
    }
  }

  /** Start a step's child workflow; in this run, a child that fails without reporting (e.g. terminated) still ends the step. */
  private async startChildStep(
    step: PipelineStep,
    child: { workflowId: string; attempts: number },
    args: Record<string, unknown>,
  ): Promise<{ done: Promise<ChildDone> }> {
    const handle = await startChild(mcpToolCall, {
      workflowId: child.workflowId,
      taskQueue: workflowInfo().taskQueue,
      // The child outlives a continue-as-new of the pipeline; it reports back by signal.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          ...stepCall(step, args),
          ...(this.input.caller !== undefined ? { caller: this.input.caller } : {}),
          reportTo: { workflowId: workflowInfo().workflowId, step: step.name, callIdPrefix: `${step.name}-${child.attempts}.` },
        },
      ],
    });
    const id = child.workflowId;
    const done = handle.result().then(
      (result): ChildDone => ({ child: id, step: step.name, result }),
      (err: Error): ChildDone => ({ child: id, step: step.name, error: (err.cause as Error | undefined)?.message ?? err.message }),
    );
    return { done };
  }
}
