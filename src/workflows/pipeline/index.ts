/**
 * `mcpPipeline` (the workflow) and its types. Its parts: the types (types.ts), the input check (input-check.ts),
 * the `{{steps.x}}` templating of arguments (templating.ts), what a long pipeline carries into continue-as-new
 * (carry.ts) and the workflow itself (workflow.ts).
 */
export { mcpPipeline } from './workflow.js';
export type { FailurePolicy, PipelineInput, PipelineResult, PipelineStage, PipelineStep, StepOutcome } from './types.js';
