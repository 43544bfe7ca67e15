/**
 * `durableMcpTools(servers, options?)`: an AI SDK `ToolSet` whose tools are MCP tools run durably (docs/agents.md).
 * Workflow code: the tool list comes from a local activity, or `mcpListTools` (its activity, so a server behind OAuth
 * gets its login; the histories before Versions.agentFastPath), and
 * each tool's `execute` runs `executeMcpTool` in the calling workflow, so a tool's elicitations and approvals are this
 * workflow's requests (the one inbox, the CLI's `pending`/`answer`). Whatever a person or the clock decides (declined,
 * expired, cancelled) comes back as a tool result the model reads; a tool that cannot run at all (a server down, a
 * login that expired) does too. Only the workflow's own cancellation ends a tool with an error.
 */
import { ApplicationFailure, isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from 'ai';
import type { ToolResult } from '../contract/schemas.js';
import type { Duration } from '../workflows/duration.js';
import { useElicitationHost } from '../workflows/host/install.js';
import { mcpListTools, type McpToolInfo } from '../workflows/mcp-list-tools.js';
import { executeMcpTool, type ExecuteMcpToolInput } from '../workflows/tool-call/index.js';
import { exposedToolName } from '../contract/tool-names.js';
import type { DurableMcpActivities } from '../contract/activities.js';
import { since, Versions } from '../workflows/versions.js';

/**
 * One tool call the model asked for, as the agent records it.
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export interface AgentToolCall {
  /** The name the model saw (`server_tool`). */
  name: string;
  server: string;
  tool: string;
  /** The AI SDK's id of the call (the model's). */
  toolCallId?: string;
  input: unknown;
  /** The tool's result as durable-mcp returns it (approval metadata included: who approved or declined, when). */
  result: ToolResult;
  /** How it ended: the tool ran (`ok`), returned an error, was not approved, or could not run. */
  outcome: 'ok' | 'tool-error' | 'not-approved' | 'failed';
}

/**
 * What decides that a call needs a person's approval first, beyond the worker's policy (never less).
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export type NeedsApproval = boolean | string[] | ((call: { name: string; server: string; tool: string; input: unknown }) => boolean);

/**
 * The options of `durableMcpTools`: which tools, and which need a person's approval.
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export interface DurableMcpToolsOptions {
  /** Only these tools: exposed names (`server_tool`) or `server/tool`; default every tool of every server. */
  tools?: string[];
  /**
   * A call that needs a person's approval before it runs, whatever the worker's policy says (it can ask for more,
   * never less): `true` for every tool, a list of names, or a function of the call. The AI SDK's own `needsApproval`
   * would end the loop and hand the approval to the caller; here it is a durable request of this workflow instead.
   */
  needsApproval?: NeedsApproval;
  /** How long a tool's elicitations and approvals wait for a person before they expire (a Duration; default 24 h). */
  expiresIn?: Duration;
  /** How long a waiting tool call holds its MCP session before it is released (a Duration; default 3 min). */
  holdFor?: Duration;
  /** Timeout of one `tools/call` (a Duration; default 1 h). */
  toolTimeout?: Duration;
  /** Attempts of a tool call's activity (default 10). */
  maxAttempts?: number;
  /** Each finished call, as it finishes (the agent records its steps with it). */
  onCall?: (call: AgentToolCall) => void;
}

export { exposedToolName };

/** A server's tool input schema for the model: an object schema whatever the server sent (hostile input, §14). */
function inputSchemaOf(info: McpToolInfo): JSONSchema7 {
  const s = info.inputSchema;
  if (s && typeof s === 'object' && !Array.isArray(s) && s.type === 'object') return s as JSONSchema7;
  return { type: 'object', properties: {} };
}

function wantsApproval(setting: NeedsApproval | undefined, call: { name: string; server: string; tool: string; input: unknown }): boolean {
  if (setting === undefined || setting === false) return false;
  if (setting === true) return true;
  if (Array.isArray(setting)) return setting.includes(call.name) || setting.includes(`${call.server}/${call.tool}`);
  return setting(call) === true;
}

/** The outcome of a finished call, from durable-mcp's result. */
function agentCallOutcome(result: ToolResult): AgentToolCall['outcome'] {
  const approval = result.metadata?.approval;
  if (typeof approval === 'string' && approval !== 'approved') return 'not-approved';
  return result.isError ? 'tool-error' : 'ok';
}

/** A failure that means the tool could not run (not this workflow's cancellation), as a result the model reads. */
function failedResult(name: string, err: unknown): ToolResult {
  const type = err instanceof ApplicationFailure && err.type ? `${err.type}: ` : '';
  const cause = err instanceof ApplicationFailure ? undefined : (err as { cause?: unknown })?.cause;
  const causeType = cause instanceof ApplicationFailure && cause.type ? `${cause.type}: ` : '';
  const message = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  return { output: `Tool "${name}" could not run: ${type || causeType}${message}`, isError: true, metadata: { failed: true } };
}

/** An agent's listing: a local activity (an idempotent read; one attempt, then the listing's own loop takes over). */
const { listMcpTools: listInline } = proxyLocalActivities<DurableMcpActivities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 1 } });

/** A server's tools, and those whose calls may run inline (as local activities: they cannot hold for a person). */
interface Listed {
  tools: McpToolInfo[];
  inline: ReadonlySet<string>;
}

/**
 * One server's listing. Since Versions.agentFastPath a local activity (its result a marker in history), from the
 * session's list when it is fresh; a server that needs a login (OAuth), or a listing that failed, goes through
 * `mcpListTools` as before (its activity, its retries, the login's loop), and none of its calls runs inline.
 */
async function listServer(server: string, fast: boolean, expiresIn: Duration | undefined): Promise<Listed> {
  if (fast) {
    try {
      const outcome = await listInline({ server, waitForLogin: true, hints: true });
      if (!Array.isArray(outcome) && 'tools' in outcome) return { tools: outcome.tools, inline: new Set(outcome.inline) };
    } catch (err) {
      if (isCancellation(err)) throw err;
    }
  }
  const tools = await mcpListTools({ server, ...(expiresIn !== undefined ? { elicitation: { expiresIn } } : {}) });
  return { tools, inline: new Set() };
}

/**
 * The tools of `servers` (names in the worker's MCP config) as an AI SDK ToolSet, each run durably by this workflow.
 * Call it in workflow code, once per agent run (it lists each server's tools through an activity).
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export async function durableMcpTools(servers: string[], options: DurableMcpToolsOptions = {}): Promise<ToolSet> {
  if (!Array.isArray(servers) || servers.length === 0 || servers.some((s) => typeof s !== 'string' || s === '')) {
    throw ApplicationFailure.nonRetryable('durableMcpTools: field "servers" must be a non-empty array of server names', 'InvalidInput');
  }
  // The workflow's requests are answerable (its handlers installed) from now on, before the first tool asks anything.
  useElicitationHost();
  const only = options.tools ? new Set(options.tools) : undefined;
  const fast = since(Versions.agentFastPath);
  const listed = await Promise.all(servers.map((server) => listServer(server, fast, options.expiresIn)));
  const tools: ToolSet = {};
  servers.forEach((server, i) => {
    const { tools: infos, inline } = listed[i]!;
    for (const info of infos) {
      const name = exposedToolName(server, info.name);
      if (only && !only.has(name) && !only.has(`${server}/${info.name}`)) continue;
      if (name in tools) continue;
      tools[name] = dynamicTool({
        description: info.description ?? info.title ?? '',
        inputSchema: jsonSchema(inputSchemaOf(info)),
        execute: async (input: unknown, execution) => {
          const args = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
          const approval = wantsApproval(options.needsApproval, { name, server, tool: info.name, input });
          const call: ExecuteMcpToolInput = {
            server,
            tool: info.name,
            arguments: args,
            ...(options.expiresIn !== undefined || options.holdFor !== undefined
              ? {
                  elicitation: {
                    ...(options.expiresIn !== undefined ? { expiresIn: options.expiresIn } : {}),
                    ...(options.holdFor !== undefined ? { holdFor: options.holdFor } : {}),
                  },
                }
              : {}),
            ...(options.toolTimeout !== undefined ? { toolTimeout: options.toolTimeout } : {}),
            ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
            ...(approval ? { approval: 'always' as const } : {}),
          };
          let result: ToolResult;
          let outcome: AgentToolCall['outcome'];
          try {
            // A call that asks nobody (no approval asked, a tool its listing marks inline) runs its first attempt inline.
            result = await executeMcpTool(call, { step: name, reportAnswers: true, ...(!approval && inline.has(info.name) ? { inline: true } : {}) });
            outcome = agentCallOutcome(result);
          } catch (err) {
            if (isCancellation(err)) throw err;
            result = failedResult(name, err);
            outcome = 'failed';
          }
          options.onCall?.({ name, server, tool: info.name, toolCallId: execution?.toolCallId, input, result, outcome });
          return result;
        },
        // The model reads the tool's output (text, or the JSON of structured content), marked as an error when it is one.
        toModelOutput: ({ output }) => {
          const r = output as ToolResult;
          return r.isError ? { type: 'error-text', value: r.output } : { type: 'text', value: r.output };
        },
      });
    }
  });
  return tools;
}
