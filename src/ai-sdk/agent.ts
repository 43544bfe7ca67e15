/**
 * The workflow `mcpAgent` (docs/agents.md): the AI SDK's tool loop (`generateText`) in a workflow, its model Temporal's
 * own (`TemporalProvider` from `@temporalio/ai-sdk/workflow`: each call the activity `invokeModel` of `AiSdkPlugin`)
 * and its tools durable MCP tools (./tools.ts). Every model call
 * and every tool call is in history: a worker that dies resumes the loop where it was, and a person's answer to a
 * tool's question reaches the tool and then the model. The conversation is carried into a new run (continue-as-new)
 * every `stepsPerRun` steps, or when Temporal suggests it, so its history stays bounded however long the agent runs.
 * Cancellation cancels the running model call or tool (their activities) and ends the workflow cancelled.
 */
import { ApplicationFailure, CancellationScope, continueAsNew, isCancellation, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import { TemporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import type { HostSnapshot } from '../workflows/host/index.js';
import { installElicitationHost } from '../workflows/host/install.js';
import type { Duration } from '../workflows/duration.js';
import { durableMcpTools, type AgentToolCall } from './tools.js';

/** Default most steps (model calls) of one agent. */
export const DEFAULT_MAX_STEPS = 20;
/** Default steps of one run before the conversation continues as new. */
export const DEFAULT_STEPS_PER_RUN = 50;
/** Most tool calls the result and the carried state keep (the latest). */
export const MAX_RECORDED_CALLS = 200;

/**
 * The input of the workflow `mcpAgent`: the request, the model, the servers whose tools it may use.
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export interface McpAgentInput {
  /** The person's request (or `messages`). */
  prompt?: string;
  /** The conversation so far, as AI SDK model messages (or `prompt`). */
  messages?: ModelMessage[];
  /** Servers of the worker's MCP config whose tools the model may call. */
  servers: string[];
  /** The model id, as the worker's AiSdkPlugin `modelProvider` knows it (e.g. "gpt-4o-mini"). */
  model: string;
  /** Instructions to the model. */
  system?: string;
  /** Most steps (model calls) in all, across runs (default 20). */
  maxSteps?: number;
  /** Only these tools (`server_tool` or `server/tool`). */
  tools?: string[];
  /** Calls that need a person's approval first, beyond the worker's policy: `true` for every tool, or their names. */
  needsApproval?: boolean | string[];
  /** How long a tool's questions and approvals wait for a person (a Duration; default 24 h). */
  expiresIn?: Duration;
  /** Activity options of each model call (default 10 minutes start-to-close). */
  modelActivity?: Pick<ActivityOptions, 'startToCloseTimeout' | 'retry' | 'heartbeatTimeout'>;
  /** Steps of one run before it continues as new with the conversation (default 50). */
  stepsPerRun?: number;
  /** Carried by continue-as-new; not for callers. */
  state?: AgentState;
}

interface AgentState {
  steps: number;
  runs: number;
  calls: AgentToolCall[];
  droppedCalls: number;
  host?: HostSnapshot;
}

/**
 * The result of the workflow `mcpAgent`: the final text and the tool calls it made.
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export interface McpAgentResult {
  /** The model's final text. */
  text: string;
  /** Why the loop ended: the model answered (`stop`, or the model's other finish reason), or the step limit. */
  finishReason: string;
  /** Steps (model calls) in all, and runs (continue-as-new carried the conversation runs - 1 times). */
  steps: number;
  runs: number;
  /** The latest tool calls (at most MAX_RECORDED_CALLS): what the model asked, what it got, approvals' who and when. */
  toolCalls: AgentToolCall[];
  /** Tool calls not in `toolCalls` (the earliest ones, beyond the limit). */
  droppedToolCalls: number;
}

function invalid(field: string, problem: string): never {
  throw ApplicationFailure.nonRetryable(`mcpAgent: field "${field}" ${problem}`, 'InvalidInput');
}

function check(input: McpAgentInput): void {
  if (!input || typeof input !== 'object') invalid('input', 'must be an object');
  if (input.prompt === undefined && input.messages === undefined) invalid('prompt', 'or "messages" is required');
  if (input.prompt !== undefined && typeof input.prompt !== 'string') invalid('prompt', 'must be a string');
  if (input.messages !== undefined && !Array.isArray(input.messages)) invalid('messages', 'must be an array of model messages');
  if (typeof input.model !== 'string' || input.model === '') invalid('model', 'must be a model id (a non-empty string)');
  if (!Array.isArray(input.servers) || input.servers.length === 0) invalid('servers', 'must be a non-empty array of server names');
  for (const [field, v] of [
    ['maxSteps', input.maxSteps],
    ['stepsPerRun', input.stepsPerRun],
  ] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > 100_000)) invalid(field, `must be a whole number from 1 to 100000, got ${String(v)}`);
  }
}

/**
 * The workflow: an agent whose tools are durable MCP tools.
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export async function mcpAgent(input: McpAgentInput): Promise<McpAgentResult> {
  check(input);
  const state: AgentState = input.state ?? { steps: 0, runs: 1, calls: [], droppedCalls: 0 };
  const host = installElicitationHost(state.host);
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;
  const stepsPerRun = input.stepsPerRun ?? DEFAULT_STEPS_PER_RUN;
  const record = (call: AgentToolCall) => {
    state.calls.push(call);
    if (state.calls.length > MAX_RECORDED_CALLS) {
      state.calls.splice(0, state.calls.length - MAX_RECORDED_CALLS);
      state.droppedCalls++;
    }
  };
  try {
    const tools = await durableMcpTools(input.servers, {
      ...(input.tools ? { tools: input.tools } : {}),
      ...(input.needsApproval !== undefined ? { needsApproval: input.needsApproval } : {}),
      ...(input.expiresIn !== undefined ? { expiresIn: input.expiresIn } : {}),
      onCall: record,
    });
    // No abort signal reaches the model: generateText is given neither `abortSignal` nor `timeout` (./model.ts).
    const model = new TemporalProvider({ languageModel: { startToCloseTimeout: '10 minutes', ...input.modelActivity } }).languageModel(input.model);
    let messages: ModelMessage[] = input.messages ?? [{ role: 'user', content: input.prompt! }];
    let stepsThisRun = 0;
    for (;;) {
      const budget = Math.min(maxSteps - state.steps, stepsPerRun - stepsThisRun);
      const r = await generateText({
        model,
        ...(input.system !== undefined ? { instructions: input.system } : {}),
        messages,
        tools,
        stopWhen: stepCountIs(budget),
        // Retries are Temporal's (the model activity's retry policy), not the AI SDK's.
        maxRetries: 0,
      });
      messages = [...messages, ...r.responseMessages];
      state.steps += r.steps.length;
      stepsThisRun += r.steps.length;
      if (r.finishReason !== 'tool-calls' || state.steps >= maxSteps) {
        return {
          text: r.text,
          finishReason: r.finishReason === 'tool-calls' ? 'max-steps' : r.finishReason,
          steps: state.steps,
          runs: state.runs,
          toolCalls: state.calls,
          droppedToolCalls: state.droppedCalls,
        };
      }
      if (stepsThisRun >= stepsPerRun || workflowInfo().continueAsNewSuggested) {
        // Between steps no tool call runs: the host carries only what its requests' ids must not repeat.
        const { prompt: _prompt, state: _state, ...rest } = input;
        return await continueAsNew<typeof mcpAgent>({
          ...rest,
          messages,
          state: { ...state, runs: state.runs + 1, host: host.snapshot() },
        });
      }
    }
  } catch (err) {
    // A cancelled (or failed) agent withdraws its pending requests: nobody is asked any more.
    if (isCancellation(err) || err instanceof ApplicationFailure) await CancellationScope.nonCancellable(async () => host.finishAll());
    throw err;
  }
}
