/**
 * The check of a pipeline's input before it runs: the steps' shape and unique names, each step's fields (the shared
 * check of src/workflows/input.ts) and the pipeline's own options. A bad input fails the workflow with InvalidInput;
 * the Nexus service (`runPipeline`) refuses it before it starts the workflow, with the same message.
 */
import { inputProblem, invalidInput, problemMessage, stepInputProblem } from '../input.js';
import { stageSteps, type PipelineInput } from './types.js';

/** Fail the pipeline with InvalidInput, its message beginning with "mcpPipeline: ". */
export function bad(message: string): never {
  invalidInput(`mcpPipeline: ${message}`);
}

/** What is wrong with a pipeline's input, as its failure says it ("mcpPipeline: …"); undefined when nothing is. Pure. */
export function pipelineInputProblem(input: PipelineInput): string | undefined {
  const problem = problemOf(input);
  return problem && `mcpPipeline: ${problem}`;
}

function problemOf(input: PipelineInput): string | undefined {
  if (!input || !Array.isArray(input.steps) || input.steps.length === 0) return 'field "steps" must be a non-empty array';
  const seen = new Set<string>();
  if (input.maxHistoryEvents !== undefined && !(Number.isInteger(input.maxHistoryEvents) && input.maxHistoryEvents >= 8)) {
    return `field "maxHistoryEvents" must be an integer of at least 8, got ${JSON.stringify(input.maxHistoryEvents)}`;
  }
  for (const [i, stage] of input.steps.entries()) {
    if (!stage || typeof stage !== 'object' || Array.isArray(stage)) {
      return `field "steps[${i}]" must be a step or { parallel: [...] }, got ${JSON.stringify(stage)}`;
    }
    if ('parallel' in stage && (!Array.isArray(stage.parallel) || stage.parallel.length === 0)) return `field "steps[${i}].parallel" must be a non-empty array`;
    for (const step of stageSteps(stage)) {
      if (!step || typeof step.name !== 'string' || !step.name) return `field "steps[${i}].name" must be a non-empty string`;
      if (seen.has(step.name)) return `step name "${step.name}" is used twice`;
      seen.add(step.name);
      // The step's fields: the shared check (src/workflows/input.ts).
      const problem = stepInputProblem(step);
      if (problem) return problem;
    }
  }
  const problem = inputProblem(input, ['onFailure']);
  return problem && problemMessage(problem);
}

/** Fail the pipeline with InvalidInput when its input is wrong. */
export function validatePipelineInput(input: PipelineInput): void {
  const problem = pipelineInputProblem(input);
  if (problem) invalidInput(problem);
}
