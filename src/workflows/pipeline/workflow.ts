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
  allHandlersFinished,
  condition,
  ContinueAsNew,
  continueAsNew,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { useElicitationHost, type HostSnapshot } from '../host/index.js';
import { mcpToolCall } from '../mcp-tool-call.js';
import { childDoneSignal, type ChildDone } from '../messages.js';
import { executeMcpToolOn, type ExecuteMcpToolInput } from '../tool-call/index.js';
import { utf8ByteLength } from '../../contract/json.js';
import { boundedNext, MAX_CARRY_BYTES } from './carry.js';
import { validatePipelineInput } from './input-check.js';
import { resolveArguments } from './templating.js';
import { stageSteps, type FailurePolicy, type PipelineInput, type PipelineResult, type PipelineState, type PipelineStep, type StepOutcome } from './types.js';

/** Continue-as-new once the history has this many events (unless the input says otherwise). */
const DEFAULT_MAX_HISTORY_EVENTS = 10_000;

export async function mcpPipeline(input: PipelineInput): Promise<PipelineResult> {
  validatePipelineInput(input);
  try {
    return await runPipeline(input);
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // The run ends failed or cancelled: withdraw its own pending requests (the pending query and the search
    // attribute then say nobody is asked any more).
    await CancellationScope.nonCancellable(async () => useElicitationHost().finishAll());
    // Children are abandoned on close (so they survive continue-as-new): a cancelled pipeline cancels them.
    if (isCancellation(err)) {
      const open = Object.values(input.state?.children ?? {})
        .map((c) => c.workflowId)
        .concat(Object.values(liveChildren).map((c) => c.workflowId));
      await CancellationScope.nonCancellable(() =>
        Promise.all(
          [...new Set(open)].map((id) =>
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

let liveChildren: Record<string, { workflowId: string }> = {};

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
  };
}

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
    log.warn(
      'mcpPipeline: not continuing as new: the state to carry (inputs, step results, answers) is too large for one payload; the pipeline goes on in this run',
      { bytes, limit: MAX_CARRY_BYTES },
    );
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
        host.newCall(
          { server: step.server, tool: step.tool, step: step.name, expiresInMs: step.elicitation?.expiresIn, holdForMs: step.elicitation?.holdFor },
          callId,
        ).callId;
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
          const result = await executeMcpToolOn(host, stepCall(step, args), { step: step.name, callId: flight.callId, resumeAfter: flight.waitingFor });
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
                ...stepCall(step, args),
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
        const outcome: StepOutcome = {
          status: failed ? 'failed' : 'completed',
          attempts: child.attempts,
          ...(done.result ? { result: done.result } : {}),
          ...(failed ? { error: done.error ?? done.result?.output ?? 'failed' } : {}),
        };
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
      const next = boundedNext(input, state, state.stage, { host: host.snapshot(), runs: state.runs + 1 });
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
      const next = boundedNext(input, state, state.stage + 1, { inflight: {}, childDone: {}, host: host.snapshot(), runs: state.runs + 1 });
      if (fits(next)) await continueAsNew<typeof mcpPipeline>(next);
      host.reopen();
    }
  }
  host.close();
  await condition(allHandlersFinished);
  return { status: 'completed', steps: state.outcomes, runs: state.runs, ...(state.earlier ? { earlier: state.earlier } : {}) };
}
