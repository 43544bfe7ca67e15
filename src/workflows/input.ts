/**
 * The one check of workflow inputs: the fields of a tool call (`mcpToolCall` and `executeMcpTool`), of a
 * pipeline step, of the host's call options, of a listing (`mcpListTools`) and of the `waitForPending` update. Each field has one check here;
 * each caller names the fields it checks, in its own order, and how its message begins ("mcpToolCall: ",
 * `mcpPipeline: step "fetch": `). A message names the field, what is wrong and the value given.
 * Pure and deterministic (no workflow state, no Node): workflow code runs it, and unit tests need no server.
 */
import { ApplicationFailure } from '@temporalio/common';
import { FailureTypes } from '../contract/failures.js';
import { preview } from '../contract/json.js';
import { assigneesProblem } from '../contract/assignees.js';
import { principalProblem } from '../contract/login.js';
import { durationProblem } from './duration.js';

/** Upper bound of `maxAttempts`. */
export const MAX_ATTEMPTS = 100;
/** Upper bound of `maxRounds`. */
export const MAX_ROUNDS = 100;
/** Most re-runs of a step with onFailure "retry" (each re-run is a whole tool call with its own attempts). */
export const MAX_STEP_RETRIES = 100;
/** Upper bound of `approvals` (N of M). */
export const MAX_APPROVALS = 20;
/** Longest wait of one `waitForPending` update. */
export const MAX_WATCH_MS = 10 * 60_000;

/** What is wrong with a value (undefined: nothing). Every field is optional unless its check says otherwise. */
type Check = (value: unknown) => string | undefined;

const nonEmptyString: Check = (v) => (typeof v === 'string' && v !== '' ? undefined : 'must be a non-empty string');
const object: Check = (v) => (v === undefined || (v !== null && typeof v === 'object' && !Array.isArray(v)) ? undefined : 'must be an object');
const wholeNumber =
  (min: number, max: number): Check =>
  (v) =>
    v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) ? undefined : `must be a whole number from ${min} to ${max}`;
const duration =
  (allowZero: boolean): Check =>
  (v) => {
    if (v === undefined) return undefined;
    const r = durationProblem(v, { allowZero });
    return 'problem' in r ? r.problem : undefined;
  };
const oneOf =
  (values: readonly string[], said: string): Check =>
  (v) =>
    v === undefined || values.includes(v as string) ? undefined : `must be ${said}`;

/** Every checked field, by its path in the input (`elicitation.expiresIn` is `input.elicitation.expiresIn`). */
export const FIELD_CHECKS = {
  server: nonEmptyString,
  tool: nonEmptyString,
  arguments: object,
  toolTimeout: duration(false),
  heartbeatTimeout: duration(false),
  maxAttempts: wholeNumber(1, MAX_ATTEMPTS),
  maxRounds: wholeNumber(1, MAX_ROUNDS),
  'elicitation.expiresIn': duration(true),
  'elicitation.holdFor': duration(true),
  'elicitation.remindAfter': duration(false),
  'elicitation.escalateAfter': duration(false),
  'elicitation.escalateTo': (v) => assigneesProblem(v, 'elicitation.escalateTo')?.problem,
  // a server behind OAuth with per-call principals: whose login the call uses
  auth: object,
  'auth.principal': (v) => (v === undefined ? undefined : principalProblem(v)),
  // a call asks for a person's approval whatever the policy (never for less than the policy)
  approval: oneOf(['always'], '"always" (a call may ask for an approval the policy does not, never waive one)'),
  // N distinct people must accept each of the call's requests (docs/people.md)
  approvals: wholeNumber(1, MAX_APPROVALS),
  // who may answer the call's requests (docs/people.md)
  assignees: (v) => assigneesPart(v)?.problem,
  // pipeline steps (and the pipeline's own default onFailure)
  retries: wholeNumber(0, MAX_STEP_RETRIES),
  onFailure: oneOf(['stop', 'continue', 'retry'], 'stop, continue or retry'),
  // the `waitForPending` update
  seen: (v) => (v === undefined || (Array.isArray(v) && v.every((id) => typeof id === 'string')) ? undefined : 'must be an array of request ids'),
  timeoutMs: (v) =>
    v === undefined || (typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_WATCH_MS)
      ? undefined
      : `must be a number of milliseconds above 0 and at most ${MAX_WATCH_MS}`,
} satisfies Record<string, Check>;

export type InputField = keyof typeof FIELD_CHECKS;

/** The part of `assignees` that is wrong (`assignees.users[1]`), its problem and its value. */
function assigneesPart(v: unknown): InputProblem | undefined {
  return assigneesProblem(v);
}
/** Fields whose problem names the part of them that is wrong. */
const FIELD_PARTS: Partial<Record<InputField, (v: unknown) => InputProblem | undefined>> = {
  assignees: assigneesPart,
  'elicitation.escalateTo': (v) => assigneesProblem(v, 'elicitation.escalateTo'),
};
export type DurationField =
  'toolTimeout' | 'heartbeatTimeout' | 'elicitation.expiresIn' | 'elicitation.holdFor' | 'elicitation.remindAfter' | 'elicitation.escalateAfter';

/**
 * The options a tool call and a pipeline step both check last, in this order: whose login the call uses, the
 * approval it asks for, and the people who may answer its requests (their reminders and escalation, N of M).
 */
export const CALL_OPTION_FIELDS = [
  'auth',
  'auth.principal',
  'approval',
  'assignees',
  'elicitation.remindAfter',
  'elicitation.escalateAfter',
  'elicitation.escalateTo',
  'approvals',
] as const satisfies readonly InputField[];
/** The fields of a tool call's input that `mcpToolCall` checks before it starts, in this order (the host checks `elicitation`). */
export const TOOL_CALL_FIELDS = [
  'server',
  'tool',
  'arguments',
  'toolTimeout',
  'heartbeatTimeout',
  'maxAttempts',
  'maxRounds',
  ...CALL_OPTION_FIELDS,
] as const satisfies readonly InputField[];
/** The fields of a listing of a server's tools that `mcpListTools` checks. */
export const LIST_TOOLS_FIELDS = ['server', 'elicitation.expiresIn', 'auth', 'auth.principal'] as const satisfies readonly InputField[];
/** The fields of a pipeline step that `mcpPipeline` checks before its first step, in this order. */
export const STEP_FIELDS = [
  'server',
  'tool',
  'elicitation.expiresIn',
  'elicitation.holdFor',
  'maxAttempts',
  'maxRounds',
  'onFailure',
  'retries',
  'toolTimeout',
  'heartbeatTimeout',
  'arguments',
  ...CALL_OPTION_FIELDS,
] as const satisfies readonly InputField[];

/** A field that is wrong: which, what is wrong with it, and the value given. */
export interface InputProblem {
  field: string;
  problem: string;
  value: unknown;
}

/** The value at a field's path (undefined where a part of the path is missing). */
export function valueAt(input: unknown, field: string): unknown {
  let v = input;
  for (const key of field.split('.')) {
    if (v === undefined || v === null) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The first wrong field of `input` among `fields`, checked in the order given. */
export function inputProblem(input: unknown, fields: readonly InputField[]): InputProblem | undefined {
  for (const field of fields) {
    const value = valueAt(input, field);
    const part = FIELD_PARTS[field]?.(value);
    if (part) return part;
    const problem = FIELD_CHECKS[field](value);
    if (problem !== undefined) return { field, problem, value };
  }
  return undefined;
}

/** `field "<field>" <problem>, got <value>` (without the value where `showValue` is false). */
export function problemMessage({ field, problem, value }: InputProblem, { showValue = true }: { showValue?: boolean } = {}): string {
  return `field "${field}" ${problem}${showValue ? `, got ${preview(value, { raw: true, max: Infinity })}` : ''}`;
}

/** Fail with the InvalidInput failure (non-retryable): the workflow, or the call that runs the check. */
export function invalidInput(message: string): never {
  throw ApplicationFailure.nonRetryable(message, FailureTypes.InvalidInput);
}

/** What is wrong with the input of workflow `name` among `fields`, as its failure says it ("<name>: field …"). */
function workflowInputProblem(name: string, input: unknown, fields: readonly InputField[]): string | undefined {
  if (!input || typeof input !== 'object') return `${name}: ${problemMessage({ field: '(input)', problem: 'must be an object', value: input })}`;
  const problem = inputProblem(input, fields);
  return problem && `${name}: ${problemMessage(problem)}`;
}

/** What is wrong with the input of a tool call (`mcpToolCall`, `executeMcpTool`), as its failure says it. */
export function toolCallInputProblem(input: unknown): string | undefined {
  return workflowInputProblem('mcpToolCall', input, TOOL_CALL_FIELDS);
}

/** What is wrong with the input of `mcpListTools`, as its failure says it. */
export function listToolsInputProblem(input: unknown): string | undefined {
  return workflowInputProblem('mcpListTools', input, LIST_TOOLS_FIELDS);
}

/**
 * What is wrong with a pipeline step's fields (its name is checked by the pipeline), as the pipeline's failure
 * says it after "mcpPipeline: ".
 */
export function stepInputProblem<Step extends { name: string }>(step: Step): string | undefined {
  const problem = inputProblem(step, STEP_FIELDS);
  // A step's server and tool are named without their value, as they always were.
  return problem && `step "${step.name}": ${problemMessage(problem, { showValue: problem.field !== 'server' && problem.field !== 'tool' })}`;
}

/** A duration option in milliseconds, `fallback` when absent; an InvalidInput failure naming the field otherwise. */
export function durationOption(field: DurationField, value: unknown, fallback: number, context?: string): number;
export function durationOption(field: DurationField, value: unknown, fallback?: undefined, context?: string): number | undefined;
export function durationOption(field: DurationField, value: unknown, fallback?: number, context = ''): number | undefined {
  if (value === undefined) return fallback;
  const problem = FIELD_CHECKS[field](value);
  if (problem !== undefined) invalidInput(`${context}${problemMessage({ field, problem, value })}`);
  const r = durationProblem(value);
  return 'ms' in r ? r.ms : fallback;
}

/** What is wrong with the input of a `waitForPending` update, if anything (absent input: nothing). */
export function watchInputProblem(input: unknown): string | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input !== 'object' || Array.isArray(input)) return `input must be an object like {"seen":[…],"timeoutMs":…}, got ${JSON.stringify(input)}`;
  const extra = Object.keys(input).filter((k) => k !== 'seen' && k !== 'timeoutMs');
  if (extra.length > 0) return `unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')}; the input has only seen, timeoutMs`;
  const problem = inputProblem(input, ['seen', 'timeoutMs']);
  return problem && problemMessage(problem);
}
