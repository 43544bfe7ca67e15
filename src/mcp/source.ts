/**
 * McpSource.load(config, waitFor?): connect every enabled server, list tools, expose status and tools.
 * With a `waitFor` the client advertises elicitation and bridges `elicitation/create` (and, in the modern era,
 * each `input_required` round) onto the Request/Answer suspension contract of the seed contract
 * (src/contract/index.ts); without one the capability is not advertised at all.
 */
import {
  admitElicitation,
  answerToElicitResult,
  deriveRoundRequestId,
  elicitationToRequest,
  readInputRequests,
  type Answer,
  type ElicitParams,
  type Request,
  type ToolResult,
} from '../contract/index.js';
import { exposedToolName, parseMcpConfig, type McpConfig } from './config.js';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';
import { urlInputRequests } from './legacy.js';
import { nextRound, type RoundInput } from './modern.js';
import { McpSession, toolCallError, type McpToolInfo } from './session.js';

export type ServerStatus = 'connected' | 'disabled' | 'failed';

/** The resolver of the seed contract (src/contract/index.ts): given a Request, produce its Answer (possibly much later). */
export type WaitFor = (request: Request) => Answer | Promise<Answer>;

export interface SourceTool extends McpToolInfo {
  /** Exposed name: sanitize(server) + "_" + sanitize(tool). */
  name: string;
  /** The tool's name on its server. */
  originalName: string;
  server: string;
}

export interface SourceCallOptions {
  /** Timeout of the tool call in ms (default 1 hour: a human may be answering an elicitation). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Modern era: at most this many `input_required` rounds (default 10). */
  maxRounds?: number;
}

/** MCP tools without Temporal: the configured servers' tools under their exposed names, called over pooled sessions. */
export class McpSource implements AsyncDisposable {
  private constructor(
    readonly status: Record<string, ServerStatus>,
    /** Why each failed server failed. */
    readonly errors: Record<string, string>,
    readonly tools: SourceTool[],
    private readonly sessions: Map<string, McpSession>,
    /** Tools that cannot be called through this source: their exposed name is taken by an earlier one. */
    readonly warnings: string[] = [],
    private readonly waitFor?: WaitFor,
  ) {}
  private calls = 0;

  /** Connects to every server of `config` (an mcp.json object) and lists its tools; fails naming the field of a bad config. */
  static async load(config: McpConfig | unknown, waitFor?: WaitFor): Promise<McpSource> {
    const parsed = isParsed(config) ? config : parseMcpConfig(config);
    const status: Record<string, ServerStatus> = {};
    const errors: Record<string, string> = {};
    const sessions = new Map<string, McpSession>();
    let ordinal = 0;
    await Promise.all(
      Object.values(parsed.servers).map(async (server) => {
        if (!server.enabled) {
          status[server.name] = 'disabled';
          return;
        }
        try {
          // Every call of the source asks through `waitFor` (the session's answerer of calls that bring none).
          const onElicit = waitFor
            ? async (params: ElicitParams) => {
                const request = elicitationToRequest(params, { id: `${server.name}-elicitation-${++ordinal}` });
                const answer = await waitFor(request);
                return answerToElicitResult(answer, { mode: params.mode === 'url' ? 'url' : 'form' });
              }
            : undefined;
          const session = await McpSession.connect(server, { elicitation: !!waitFor, ...(onElicit ? { onElicit } : {}) });
          sessions.set(server.name, session);
          status[server.name] = 'connected';
        } catch (err) {
          status[server.name] = 'failed';
          errors[server.name] = (err as Error).message;
        }
      }),
    );
    // In config order (not connect order), so which of two colliding names wins never depends on timing.
    const tools: SourceTool[] = [];
    const byName = new Map<string, SourceTool>();
    const warnings: string[] = [];
    for (const name of Object.keys(parsed.servers)) {
      const session = sessions.get(name);
      if (!session) continue;
      for (const t of session.tools) {
        const exposed = exposedToolName(name, t.name);
        const taken = byName.get(exposed);
        if (taken) {
          warnings.push(
            `tool "${t.name}" of server "${name}" is not exposed: its name "${exposed}" is taken by tool "${taken.originalName}" of server "${taken.server}"`,
          );
          continue;
        }
        const tool = { ...t, name: exposed, originalName: t.name, server: name };
        byName.set(exposed, tool);
        tools.push(tool);
      }
    }
    return new McpSource(status, errors, tools, sessions, warnings, waitFor);
  }

  /** Call a tool by its exposed name. */
  async callTool(name: string, args?: Record<string, unknown>, options: SourceCallOptions = {}): Promise<ToolResult> {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) {
      const known = this.tools.map((t) => t.name).join(', ') || '(none)';
      throw new McpSourceError(McpSourceErrorCodes.UnknownTool, `unknown tool "${name}"; known tools: ${known}`, { tool: name });
    }
    const session = this.sessions.get(tool.server);
    if (!session) throw toolCallError(`server "${tool.server}": the MCP source is closed`, tool.server, tool.originalName);
    const callOptions = { timeoutMs: options.timeoutMs ?? 3_600_000, signal: options.signal };
    if (session.era === 'legacy' && !this.waitFor) return session.callTool(tool.originalName, args, callOptions);
    // Drive the rounds in process: a modern-era `input_required` round (or a legacy -32042 error) asks through
    // `waitFor`, every request of a round at once, then sends the next round with the answers and the state.
    const maxRounds = options.maxRounds ?? 10;
    const callId = `${tool.server}.${tool.originalName}.${++this.calls}`;
    let round: RoundInput = {};
    for (let n = 1; ; n++) {
      const outcome = await session.callToolRound(tool.originalName, args, round, callOptions);
      if (outcome.kind === 'complete') return outcome.result;
      const where = `tool "${tool.originalName}" of server "${tool.server}"`;
      const fields = { server: tool.server, tool: tool.originalName };
      if (outcome.kind === 'task')
        throw new McpSourceError(
          McpSourceErrorCodes.ToolCallFailed,
          `${where} runs as an MCP task (${outcome.task.taskId}), which McpSource does not poll:` +
            ' call it through the worker, or set "tasks": "off" for the server',
          fields,
        );
      if (n >= maxRounds)
        throw new McpSourceError(McpSourceErrorCodes.RoundLimitExceeded, `${where} still required input after ${n} rounds (maxRounds ${maxRounds})`, fields);
      // Legacy era: the URLs of a -32042 error (keys url1, url2, …); modern era: the round's input requests.
      const entries = outcome.kind === 'url_required' ? urlInputRequests(outcome) : readInputRequests(outcome.inputRequests);
      // The arrival rules of every elicitation (contract/admit.ts); a refused one fails the call, naming the key.
      for (const e of entries) {
        if (e.kind !== 'elicitation') continue;
        const admission = admitElicitation(e.params);
        if (!admission.ok) throw new McpSourceError(McpSourceErrorCodes.ElicitationRefused, `${where}: input request "${e.key}": ${admission.message}`, fields);
        e.params = admission.params;
      }
      const unsupported = entries.find((e) => e.kind === 'unsupported');
      if (unsupported && unsupported.kind === 'unsupported')
        throw new McpSourceError(
          McpSourceErrorCodes.UnsupportedInputRequest,
          `${where} asked for input of kind "${unsupported.method}" (key "${unsupported.key}"), which this client never declared`,
          fields,
        );
      const waitFor = this.waitFor;
      if (entries.length > 0 && !waitFor)
        throw new McpSourceError(McpSourceErrorCodes.UnsupportedInputRequest, `${where} asked for input, but this source has no waitFor`, fields);
      const answers = await Promise.all(
        entries.map(async (e) => {
          const params = (e as { params: ElicitParams }).params;
          const answer = await waitFor!(elicitationToRequest(params, { id: deriveRoundRequestId(callId, n, e.key, params) }));
          return [e.key, answerToElicitResult(answer, { mode: params.mode === 'url' ? 'url' : 'form' })] as const;
        }),
      );
      if (outcome.kind === 'url_required') {
        // Legacy era: every URL completed, the call is made again from the start.
        const refused = answers.find(([, r]) => r.action !== 'accept');
        if (refused)
          throw new McpSourceError(
            McpSourceErrorCodes.UrlElicitationRefused,
            `${where} requires URL elicitation "${refused[0]}", which was not completed (${refused[1].action})`,
            fields,
          );
        round = {};
        continue;
      }
      if (entries.length === 0) await new Promise((r) => setTimeout(r, 250));
      round = nextRound(outcome, entries.length > 0 ? Object.fromEntries(answers) : undefined);
    }
  }

  /** Close every session; no server process is left running. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
  }

  /** Closes every session and server process (`await using source = await McpSource.load(…)`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function isParsed(config: unknown): config is McpConfig {
  if (!config || typeof config !== 'object' || !('servers' in config)) return false;
  const servers = (config as { servers: unknown }).servers;
  return !!servers && typeof servers === 'object' && Object.values(servers).every((s) => s && typeof s === 'object' && 'transport' in s && 'timeoutMs' in s);
}
