/**
 * The check of a pipeline's input before it runs: the steps' shape and unique names, each step's fields (the shared
 * check of src/workflows/input.ts) and the pipeline's own options. A bad input fails the workflow with InvalidInput.
 */
import { inputProblem, invalidInput, problemMessage, stepInputProblem } from '../input.js';
import { stageSteps, type PipelineInput } from './types.js';

/** Fail the pipeline with InvalidInput, its message beginning with "mcpPipeline: ". */
export function bad(message: string): never {
  invalidInput(`mcpPipeline: ${message}`);
}

export function validatePipelineInput(input: PipelineInput): void {
  if (!input || !Array.isArray(input.steps) || input.steps.length === 0) bad('field "steps" must be a non-empty array');
  const seen = new Set<string>();
  if (input.maxHistoryEvents !== undefined && !(Number.isInteger(input.maxHistoryEvents) && input.maxHistoryEvents >= 8)) {
    bad(`field "maxHistoryEvents" must be an integer of at least 8, got ${JSON.stringify(input.maxHistoryEvents)}`);
  }
  input.steps.forEach((stage, i) => {
    if (!stage || typeof stage !== 'object' || Array.isArray(stage)) {
      bad(`field "steps[${i}]" must be a step or { parallel: [...] }, got ${JSON.stringify(stage)}`);
    }
    if ('parallel' in stage && (!Array.isArray(stage.parallel) || stage.parallel.length === 0)) bad(`field "steps[${i}].parallel" must be a non-empty array`);
    for (const step of stageSteps(stage)) {
      if (!step || typeof step.name !== 'string' || !step.name) bad(`field "steps[${i}].name" must be a non-empty string`);
      if (seen.has(step.name)) bad(`step name "${step.name}" is used twice`);
      seen.add(step.name);
      // The step's fields: the shared check (src/workflows/input.ts).
      const problem = stepInputProblem(step);
      if (problem) bad(problem);
    }
  });
  const problem = inputProblem(input, ['onFailure']);
  if (problem) bad(problemMessage(problem));
}
