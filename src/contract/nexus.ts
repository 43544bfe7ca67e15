/**
 * The contract of the Nexus service `durable-mcp` (docs/nexus.md): what a workflow in any language and namespace sends
 * to its operations and gets back, as plain JSON. The zod schemas here are the contract; the JSON Schemas committed in
 * docs/nexus/ are generated from them (`nexusJsonSchemas`) and a test keeps the two, and the TypeScript types of the
 * workflows behind the operations, equal. Also: who asked, read from the Nexus links the caller's server sends.
 * Pure (zod only).
 */
import { z } from 'zod';
import type { NexusCaller } from './requests.js';
import { ToolResultSchema } from './schemas.js';

export type { NexusCaller } from './requests.js';

/** The service's name, the same in every SDK (`create_nexus_client(service="durable-mcp", …)`). */
export const NEXUS_SERVICE = 'durable-mcp';
/** The operations' names. */
export const NexusOperations = { callTool: 'callTool', listTools: 'listTools', runPipeline: 'runPipeline' } as const;

/** A duration: a number of milliseconds, or a string like "30s", "24h", "1 day" (Temporal's format). */
const DurationSchema = z.union([z.number(), z.string()]);
const AssigneesSchema = z.strictObject({ users: z.array(z.string()).optional(), roles: z.array(z.string()).optional() });

/** The input of `callTool`: one MCP tool call, as `mcpToolCall` takes it, without its internal fields. */
export const NexusCallToolInputSchema = z.strictObject({
  /** The server's name in durable-mcp's MCP config. */
  server: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  elicitation: z
    .strictObject({
      expiresIn: DurationSchema.optional(),
      holdFor: DurationSchema.optional(),
      remindAfter: DurationSchema.optional(),
      escalateAfter: DurationSchema.optional(),
      escalateTo: AssigneesSchema.optional(),
    })
    .optional(),
  toolTimeout: DurationSchema.optional(),
  heartbeatTimeout: DurationSchema.optional(),
  maxAttempts: z.number().optional(),
  maxRounds: z.number().optional(),
  auth: z.strictObject({ principal: z.string().optional() }).optional(),
  approval: z.literal('always').optional(),
  assignees: AssigneesSchema.optional(),
  approvals: z.number().optional(),
});
export type NexusCallToolInput = z.infer<typeof NexusCallToolInputSchema>;

/** The input of `listTools`: the server whose tools to list (a server behind OAuth: how long its sign-in waits, whose login). */
export const NexusListToolsInputSchema = z.strictObject({
  server: z.string(),
  elicitation: z.strictObject({ expiresIn: DurationSchema.optional() }).optional(),
  auth: z.strictObject({ principal: z.string().optional() }).optional(),
});
export type NexusListToolsInput = z.infer<typeof NexusListToolsInputSchema>;

/** A step of `runPipeline`: one tool call as `callTool` takes it, with its name and what its failure does. */
const PipelineStepSchema = NexusCallToolInputSchema.extend({
  /** Unique; a later step refers to its result as `{{steps.<name>.output}}` or `{ "$ref": "steps.<name>.json.…" }`. */
  name: z.string(),
  onFailure: z.enum(['stop', 'continue', 'retry']).optional(),
  retries: z.number().optional(),
  /** Run the step as a child workflow (`mcpToolCall`) instead of inline. */
  child: z.boolean().optional(),
});

/** The input of `runPipeline`: `mcpPipeline`'s, without its internal fields (`state`, `caller`). */
export const NexusPipelineInputSchema = z.strictObject({
  /** Stages run in order: a step, or `{ parallel: [steps] }` run at once. */
  steps: z.array(z.union([PipelineStepSchema, z.strictObject({ parallel: z.array(PipelineStepSchema) })])),
  onFailure: z.enum(['stop', 'continue', 'retry']).optional(),
  childWorkflows: z.boolean().optional(),
  maxHistoryEvents: z.number().optional(),
});
export type NexusPipelineInput = z.infer<typeof NexusPipelineInputSchema>;

/** The output of `callTool`: the tool's result; a declined or expired approval or question is a result (`isError`, `metadata.approval`). */
export const NexusCallToolOutputSchema = ToolResultSchema;
export type NexusCallToolOutput = z.infer<typeof NexusCallToolOutputSchema>;

/** One tool as its server lists it; other fields pass through as the server sent them. */
const ToolInfoSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
/** The output of `listTools`. */
export const NexusListToolsOutputSchema = z.array(ToolInfoSchema);
export type NexusListToolsOutput = z.infer<typeof NexusListToolsOutputSchema>;

/** One step's outcome in `runPipeline`'s output. */
const StepOutcomeSchema = z.strictObject({
  status: z.enum(['completed', 'failed']),
  result: ToolResultSchema.optional(),
  error: z.string().optional(),
  attempts: z.number(),
});
/** The output of `runPipeline`: each step's outcome by name (a stopped pipeline lists the steps that ran). */
export const NexusPipelineOutputSchema = z.strictObject({
  status: z.enum(['completed', 'stopped']),
  steps: z.record(z.string(), StepOutcomeSchema),
  /** Runs of the workflow (1 + its continue-as-new count). */
  runs: z.number(),
  /** A long pipeline's finished steps that no later step referred to: counted, not listed. */
  earlier: z.strictObject({ completed: z.number(), failed: z.number() }).optional(),
});
export type NexusPipelineOutput = z.infer<typeof NexusPipelineOutputSchema>;

/** Each schema of the contract by the name of its committed JSON Schema file (docs/nexus/<name>). */
export const NEXUS_SCHEMAS = {
  'callTool.input.schema.json': NexusCallToolInputSchema,
  'callTool.output.schema.json': NexusCallToolOutputSchema,
  'listTools.input.schema.json': NexusListToolsInputSchema,
  'listTools.output.schema.json': NexusListToolsOutputSchema,
  'runPipeline.input.schema.json': NexusPipelineInputSchema,
  'runPipeline.output.schema.json': NexusPipelineOutputSchema,
} as const;

/** The JSON Schemas of the contract (draft 2020-12), by file name: what docs/nexus/ holds. */
export function nexusJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [file, schema] of Object.entries(NEXUS_SCHEMAS)) {
    const name = file.replace('.schema.json', '');
    out[file] = { title: `durable-mcp ${name}`, ...z.toJSONSchema(schema, { io: 'input' }) };
  }
  return out;
}

/** At most this many characters of a field name sent from outside are shown in a problem. */
const MAX_FIELD_SHOWN = 100;

/** An input that does not fit the contract: the field (a dotted path, `(input)` for the whole) and what is wrong. */
export interface NexusInputProblem {
  field: string;
  problem: string;
}

/** The first problem of `input` against `schema` (unknown fields included), or the input as the contract types it. */
export function parseNexusInput<S extends z.ZodType>(schema: S, input: unknown): { input: z.infer<S> } | NexusInputProblem {
  const r = schema.safeParse(input);
  if (r.success) return { input: r.data };
  return problemOfIssue(r.error.issues[0]!, []);
}

/** An issue of zod, its path prefixed by `at`, said as a field and a problem. */
function problemOfIssue(found: z.core.$ZodIssue, at: PropertyKey[]): NexusInputProblem {
  // A union (a pipeline's stage: a step or `{ parallel }`): say the problem of the alternative that came closest.
  if (found.code === 'invalid_union' && found.errors.length > 0) {
    const closest = found.errors.reduce((a, b) => (b.length < a.length ? b : a));
    if (closest.length > 0) return problemOfIssue(closest[0]!, [...at, ...found.path]);
  }
  const issue = { ...found, path: [...at, ...found.path] } as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys') {
    const at = issue.path.map(String);
    const keys = issue.keys.slice(0, 5).map((k) => JSON.stringify(k.slice(0, MAX_FIELD_SHOWN)));
    return { field: [...at, issue.keys[0]!.slice(0, MAX_FIELD_SHOWN)].join('.'), problem: `is not a field of the input (unknown: ${keys.join(', ')})` };
  }
  const field = issue.path.length > 0 ? issue.path.map((p) => String(p).slice(0, MAX_FIELD_SHOWN)).join('.') : '(input)';
  const expected =
    'expected' in issue && typeof issue.expected === 'string' ? `must be ${issue.expected === 'record' ? 'object' : issue.expected}` : issue.message;
  return { field, problem: issue.code === 'invalid_value' ? issue.message : expected };
}

// ---- who asked: the caller's namespace and workflow, from the Nexus links ----

/** The link type a workflow caller's server sends (the event that scheduled the operation). */
export const WORKFLOW_EVENT_LINK = 'temporal.api.common.v1.Link.WorkflowEvent';
/** At most this many links are read, and only URLs up to this many characters. */
const MAX_LINKS = 8;
const MAX_LINK_URL = 4096;
/** Temporal's own limits: a namespace name, and a workflow or run id. */
const MAX_NAMESPACE = 255;
const MAX_ID = 1000;

/** One segment of a link's path, decoded; undefined when it is not a decodable, printable string of at most `max` characters. */
function segment(raw: string | undefined, max: number): string | undefined {
  if (raw === undefined || raw === '' || raw.length > max * 3) return undefined;
  let s: string;
  try {
    s = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (s.length > max) return undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) return undefined;
  }
  return s;
}

/**
 * Who asked, from the links of a Nexus start request (`ctx.inboundLinks`): the namespace and workflow of a workflow
 * caller (`temporal:///namespaces/<ns>/workflows/<workflowId>/<runId>/history?…`), or the namespace alone of another
 * caller (`temporal:///namespaces/<ns>/…`). Links come from outside: at most MAX_LINKS are read, long or undecodable
 * ones are skipped, no regex runs. Undefined when no link names a namespace. The links are what the caller's server
 * wrote: they say who asked, they do not authenticate it.
 */
export function callerOfLinks(links: ReadonlyArray<{ url: URL | string; type: string }> | undefined): NexusCaller | undefined {
  let fallback: NexusCaller | undefined;
  for (const link of (links ?? []).slice(0, MAX_LINKS)) {
    const text = typeof link?.url === 'string' ? link.url : link?.url instanceof URL ? link.url.href : undefined;
    if (text === undefined || text.length > MAX_LINK_URL || !text.startsWith('temporal:')) continue;
    let path: string;
    try {
      path = new URL(text).pathname;
    } catch {
      continue;
    }
    const parts = path.split('/', 8);
    if (parts[0] !== '' || parts[1] !== 'namespaces') continue;
    const namespace = segment(parts[2], MAX_NAMESPACE);
    if (namespace === undefined) continue;
    if (parts[3] === 'workflows') {
      const workflowId = segment(parts[4], MAX_ID);
      const runId = segment(parts[5], MAX_ID);
      if (workflowId !== undefined) return { namespace, workflowId, ...(runId !== undefined ? { runId } : {}) };
    }
    fallback ??= { namespace };
  }
  return fallback;
}

/** Who asked, in one line: `caller-py/order-42` (namespace/workflow), or the namespace alone. */
export function callerLine(caller: NexusCaller): string {
  return caller.workflowId !== undefined ? `${caller.namespace}/${caller.workflowId}` : caller.namespace;
}
