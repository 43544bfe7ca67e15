/**
 * What a long pipeline carries into continue-as-new, and how big it may be: the bounded next input (the remaining
 * stages, and only the finished steps they still refer to) and the payload size check.
 */
import { referencedSteps } from './templating.js';
import { stageSteps, type PipelineInput, type PipelineState, type StepOutcome } from './types.js';

/**
 * Largest continue-as-new input the pipeline sends: Temporal's default blob limit (2 MiB, payload framing
 * included) less a margin for that framing. At the limit itself, so that every continue-as-new that Temporal
 * accepted before this check still replays the same way.
 */
export const MAX_CARRY_BYTES = 2 * 1024 * 1024 - 64;

/**
 * The input of the next run, bounded: the stages from `stage` on (earlier ones are done), and of the finished
 * steps only those that a remaining step refers to or that belong to the remaining stages; the others are counted.
 */
export function boundedNext(input: PipelineInput, state: PipelineState, stage: number, extra: Partial<PipelineState>): PipelineInput {
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
