/**
 * The templating of step arguments: `"{{steps.fetch.output}}"` (a whole string, or inside text) and
 * `{ "$ref": "steps.fetch.json.items.0" }` resolve against the outcomes of earlier steps. Pure and deterministic
 * (no workflow state): the pipeline runs it, and unit tests need no server.
 */
import { bad } from './input-check.js';
import { stageSteps, type PipelineStage, type StepOutcome } from './types.js';

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
      if (v === null || typeof v !== 'object' || !(key in (v as object))) {
        bad(`step "${step}": reference "${ref}": no "${key}" in the output of step "${parts[1]}"`);
      }
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
