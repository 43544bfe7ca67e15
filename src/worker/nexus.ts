/**
 * The Nexus service `durable-mcp` (docs/nexus.md): workflows in any SDK language and any namespace call MCP tools through a
 * Nexus endpoint that targets durable-mcp's task queue. Both operations are asynchronous, each backed by one workflow
 * started through `startWorkflow` (so the caller's links, its completion callback and its request id go with it):
 * `callTool` by `mcpToolCall`, `listTools` by `mcpListTools`, `runPipeline` by `mcpPipeline`. The workflow id is derived from the operation's request id,
 * which the caller's server keeps across retries of the start: a retried start finds the same workflow, never a second call.
 * Cancelling the operation cancels that workflow (its requests are withdrawn). The input is the contract's
 * (src/contract/nexus.ts): unknown fields (an internal one like `reportTo`, `continued`, `state` or `caller` included) and bad
 * values are a BAD_REQUEST naming the field. Who asked (the caller's namespace and workflow, from its links) goes with the
 * call's requests. Worker-side only, loaded by the plugin when the service is asked for (@temporalio/nexus, nexus-rpc).
 */
import * as nexus from 'nexus-rpc';
import { startWorkflow, WorkflowRunOperationHandler } from '@temporalio/nexus';
import {
  callerOfLinks,
  NEXUS_SERVICE,
  NexusCallToolInputSchema,
  NexusListToolsInputSchema,
  NexusPipelineInputSchema,
  parseNexusInput,
  type NexusCallToolInput,
  type NexusCallToolOutput,
  type NexusListToolsInput,
  type NexusListToolsOutput,
  type NexusPipelineInput,
  type NexusPipelineOutput,
} from '../contract/nexus.js';
import { listToolsInputProblem, toolCallInputProblem } from '../workflows/input.js';
import type { McpToolCallInput } from '../workflows/mcp-tool-call.js';
import type { McpListToolsInput } from '../workflows/mcp-list-tools.js';
import { pipelineInputProblem } from '../workflows/pipeline/input-check.js';
import type { PipelineInput } from '../workflows/pipeline/types.js';
import { awaitingInputKey, type RegisteredSearchAttributes } from '../workflows/visibility.js';

/** The service definition: its name and operations, as callers in TypeScript may import it. */
export const durableMcpService = nexus.service(NEXUS_SERVICE, {
  callTool: nexus.operation<NexusCallToolInput, NexusCallToolOutput>(),
  listTools: nexus.operation<NexusListToolsInput, NexusListToolsOutput>(),
  runPipeline: nexus.operation<NexusPipelineInput, NexusPipelineOutput>(),
});

/** The longest BAD_REQUEST message (it may show a value the caller sent). */
const MAX_PROBLEM = 1000;

/** The longest request id used in a workflow id (the caller's server sends a UUID). */
const MAX_REQUEST_ID = 128;

/** The operation's request id as part of a workflow id; a BAD_REQUEST when there is none (nothing could dedupe a retried start). */
function requestIdOf(ctx: nexus.StartOperationContext): string {
  const id = ctx.requestId;
  if (typeof id !== 'string' || id === '' || id.length > MAX_REQUEST_ID)
    throw new nexus.HandlerError('BAD_REQUEST', `the start request has no usable request id (at most ${MAX_REQUEST_ID} characters)`);
  return id;
}

/** The contract's input, checked: the contract's shape first (unknown fields), then the workflow's own checks (ranges, durations). */
function checked<T>(operation: string, parsed: { input: T } | { field: string; problem: string }, problemOf: (input: T) => string | undefined): T {
  if (!('input' in parsed)) throw new nexus.HandlerError('BAD_REQUEST', `${operation}: field "${parsed.field}" ${parsed.problem}`);
  const problem = problemOf(parsed.input);
  // The workflow's message begins with its own name ("mcpToolCall: "): say the operation's instead. The value it shows
  // comes from outside: the message is cut to MAX_PROBLEM characters.
  if (problem) throw new nexus.HandlerError('BAD_REQUEST', `${operation}: ${problem.slice(problem.indexOf(': ') + 2)}`.slice(0, MAX_PROBLEM));
  return parsed.input;
}

/** The service's handler, for a worker on durable-mcp's task queue (`nexusServices`). `searchAttributes`: what the namespace has registered. */
export function durableMcpServiceHandler(deps: { searchAttributes: RegisteredSearchAttributes }): nexus.ServiceHandler<typeof durableMcpService.operations> {
  // As the client starts calls: listed while they wait, where the namespace has the attribute.
  const listed = deps.searchAttributes !== 'none' ? { typedSearchAttributes: [{ key: awaitingInputKey, value: false }] } : {};
  return nexus.serviceHandler(durableMcpService, {
    callTool: new WorkflowRunOperationHandler<NexusCallToolInput, NexusCallToolOutput>(async (ctx, raw) => {
      const call = checked('callTool', parseNexusInput(NexusCallToolInputSchema, raw), toolCallInputProblem);
      const caller = callerOfLinks(ctx.inboundLinks);
      const input: McpToolCallInput = { ...call, ...(caller ? { caller } : {}) };
      return startWorkflow(ctx, 'mcpToolCall', {
        workflowId: `mcp-nexus-${requestIdOf(ctx)}`,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...listed,
      });
    }),
    listTools: new WorkflowRunOperationHandler<NexusListToolsInput, NexusListToolsOutput>(async (ctx, raw) => {
      const listing: McpListToolsInput = checked('listTools', parseNexusInput(NexusListToolsInputSchema, raw), listToolsInputProblem);
      return startWorkflow(ctx, 'mcpListTools', {
        workflowId: `mcp-tools-nexus-${requestIdOf(ctx)}`,
        args: [listing],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    }),
    runPipeline: new WorkflowRunOperationHandler<NexusPipelineInput, NexusPipelineOutput>(async (ctx, raw) => {
      const pipeline = checked('runPipeline', parseNexusInput(NexusPipelineInputSchema, raw), pipelineInputProblem);
      const caller = callerOfLinks(ctx.inboundLinks);
      const input: PipelineInput = { ...pipeline, ...(caller ? { caller } : {}) };
      return startWorkflow(ctx, 'mcpPipeline', {
        workflowId: `mcp-pipeline-nexus-${requestIdOf(ctx)}`,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...listed,
      });
    }),
  });
}
