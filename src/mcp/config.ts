/**
 * MCP server configuration: the Claude / opencode superset.
 * Top key `mcpServers` | `servers` | `mcp`. `command` (array, or string with `args`) means local stdio;
 * `url` means remote streamable HTTP with SSE fallback. Bad config fails here, before anything starts,
 * with a message that names the server and the field.
 */
import { readFileSync } from 'node:fs';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { msToNumber, type Duration } from '@temporalio/common';
import { z } from 'zod';
import { isPolicyProblem, parseApprovalPolicy, type ApprovalPolicy } from '../contract/approval.js';
import type { ProtocolEra } from '../contract/era.js';
import { parseAuth, type OAuthConfig } from './auth-config.js';
import { isLoopbackHost } from './auth/outbound.js';
import { describe } from './config-values.js';
import { parseNotify, type NotifyConfig } from './notify-config.js';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';

export { NotifyConfigSchema, type NotifyConfig } from './notify-config.js';
export type { OAuthConfig } from './auth-config.js';

/** An ms-format duration string in ms (NaN when it is not one: the schema then names the field). */
function durationToMs(v: string): number {
  try {
    return msToNumber(v as Duration);
  } catch {
    return Number.NaN;
  }
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * How the worker negotiates with a server (docs/eras.md): `auto` (default) speaks 2026-07-28 when the server offers it,
 * else the legacy era, and falls back to the legacy era for a server whose tools turn out to ask the old way;
 * `legacy` and `modern` pin the era.
 */
export type EraSetting = 'auto' | ProtocolEra;

/** The protocol versions a server's `protocolVersion` may pin: 2026-07-28 (modern) and the SDK's legacy ones. */
export const PINNABLE_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS];

interface CommonServerConfig {
  name: string;
  enabled: boolean;
  /** Per-phase timeout (connect, initialize, list) in ms. */
  timeoutMs: number;
  /** Allowlist of original tool names; absent means every tool. */
  tools?: string[];
  /** Upper bound of concurrent sessions the worker's pool opens to this server. */
  maxSessions: number;
  /** The era setting (`auto` unless the config says `era`, or pins a `protocolVersion`, whose era it is then). */
  era: EraSetting;
  /** A pinned protocol version (the only one offered); absent: negotiated. */
  protocolVersion?: string;
  /**
   * MCP Tasks, 2026-07-28 extension `io.modelcontextprotocol/tasks` (docs/tasks.md): `auto` (default) declares it, so
   * the server may answer a `tools/call` with a task; `off` does not (a server that needs it fails the call, typed).
   */
  tasks: 'auto' | 'off';
  /** Which calls a person approves before the tool runs (its own `approval`, else the config's; absent: never). */
  approval?: ApprovalPolicy;
}
export interface StdioServerConfig extends CommonServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}
export interface HttpServerConfig extends CommonServerConfig {
  transport: 'http';
  url: string;
  /** Header values may contain `${ENV_VAR}`, expanded at connect time and never logged. */
  headers?: Record<string, string>;
  /** MCP authorization (OAuth): the worker signs in through a durable login (docs/oauth.md). */
  auth?: OAuthConfig;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;
export interface McpConfig {
  servers: Record<string, ServerConfig>;
  /** Where the worker sends a notification when a request becomes pending. */
  notify?: NotifyConfig;
  /** `"requireEncryption": true`: the worker refuses to start without an encryption key (as DURABLE_MCP_REQUIRE_ENCRYPTION=1). */
  requireEncryption?: boolean;
  /** The worker-wide approval policy (the top-level `approval`), for servers without their own. */
  approval?: ApprovalPolicy;
}

/** The longest delay Node's timers honour (2^31-1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A wrong config, as the MCP plane's error (code `McpConfigInvalid`), naming the server and the field where known. */
export function configError(message: string, server?: string, field?: string): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.McpConfigInvalid, message, { server, field });
}

const stringRecord = z.record(z.string(), z.string());
const RawServerSchema = z
  .object({
    type: z.enum(['stdio', 'local', 'http', 'streamable-http', 'streamableHttp', 'sse', 'remote']).optional(),
    command: z.union([z.array(z.string().min(1)).min(1), z.string().min(1)]).optional(),
    args: z.array(z.string()).optional(),
    env: stringRecord.optional(),
    environment: stringRecord.optional(),
    cwd: z.string().min(1).optional(),
    url: z.string().url().optional(),
    headers: stringRecord.optional(),
    enabled: z.boolean().optional(),
    disabled: z.boolean().optional(),
    // A Temporal Duration: a number of ms, or an ms-format string ("30s", "2m").
    timeout: z.preprocess((v) => (typeof v === 'string' ? durationToMs(v) : v), z.number().int().positive().max(MAX_TIMER_MS)).optional(),
    tools: z.array(z.string().min(1)).optional(),
    maxSessions: z.number().int().positive().optional(),
    era: z.enum(['auto', 'legacy', 'modern']).optional(),
    tasks: z.enum(['auto', 'off']).optional(),
    protocolVersion: z
      .string()
      .refine((v) => PINNABLE_PROTOCOL_VERSIONS.includes(v))
      .optional(),
    auth: z.unknown().optional(),
    approval: z.unknown().optional(),
  })
  .passthrough();

/** Fields whose values may hold secrets (tokens, API keys): errors say what kind of value is wrong, never the value. */
const SECRET_FIELDS = new Set(['env', 'environment', 'headers', 'auth']);

function fieldProblem(issue: z.core.$ZodIssue, raw: Record<string, unknown>): { field: string; problem: string } {
  const field = issue.path.map(String).join('.') || '(server)';
  const top = issue.path[0];
  let value: unknown = top === undefined ? raw : raw[String(top)];
  for (const key of issue.path.slice(1)) value = (value as any)?.[key as any];
  const hints: Record<string, string> = {
    command: 'must be a non-empty array of strings (or a string, with `args`)',
    args: 'must be an array of strings',
    url: 'must be an absolute URL',
    timeout: `must be a Duration string ("30s", "2m") or a positive integer number of milliseconds, at most ${MAX_TIMER_MS} (about 24.8 days)`,
    maxSessions: 'must be a positive integer',
    tools: 'must be an array of tool names',
    enabled: 'must be true or false',
    disabled: 'must be true or false',
    env: 'must map names to string values',
    environment: 'must map names to string values',
    headers: 'must map header names to string values',
    cwd: 'must be a non-empty path',
    type: 'must be one of stdio, local, http, streamable-http, sse, remote',
    era: 'must be "auto", "legacy" or "modern"',
    tasks: 'must be "auto" or "off"',
    protocolVersion: `must be a protocol version the worker speaks: ${PINNABLE_PROTOCOL_VERSIONS.join(', ')}`,
  };
  const problem = (top !== undefined && hints[String(top)]) || issue.message;
  return { field, problem: `${problem}, got ${describe(value, top !== undefined && SECRET_FIELDS.has(String(top)))}` };
}

/** Parse and validate an MCP config object. Throws an McpSourceError (McpConfigInvalid) naming the server and the field. */
export function parseMcpConfig(raw: unknown, source = 'MCP config'): McpConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw configError(`${source}: must be a JSON object with a "mcpServers", "servers" or "mcp" key, got ${describe(raw)}`);
  }
  const obj = raw as Record<string, unknown>;
  const keys = ['mcpServers', 'servers', 'mcp'].filter((k) => k in obj);
  if (keys.length === 0) throw configError(`${source}: no "mcpServers", "servers" or "mcp" key found`);
  if (keys.length > 1) throw configError(`${source}: use one of "mcpServers", "servers" or "mcp", not ${keys.join(' and ')}`);
  const top = keys[0];
  const serversRaw = obj[top];
  if (serversRaw === null || typeof serversRaw !== 'object' || Array.isArray(serversRaw)) {
    throw configError(`${source}: "${top}" must be an object mapping server names to settings, got ${describe(serversRaw)}`, undefined, top);
  }
  const approval =
    obj.approval === undefined
      ? undefined
      : approvalPolicy(obj.approval, (field, problem) => {
          throw configError(`${source}: field "${field}" ${problem}`, undefined, field);
        });
  const servers: Record<string, ServerConfig> = {};
  for (const [name, value] of Object.entries(serversRaw as Record<string, unknown>)) {
    servers[name] = parseServer(name, value, source, approval);
  }
  if (obj.requireEncryption !== undefined && typeof obj.requireEncryption !== 'boolean')
    throw configError(`${source}: field "requireEncryption" must be true or false, got ${describe(obj.requireEncryption)}`, undefined, 'requireEncryption');
  return {
    servers,
    ...(obj.notify !== undefined ? { notify: parseNotify(obj.notify, source) } : {}),
    ...(obj.requireEncryption === true ? { requireEncryption: true } : {}),
    ...(approval ? { approval } : {}),
  };
}

/** The `approval` policy of the config or of a server (src/contract/approval.ts), or `bad(field, problem)`. */
function approvalPolicy(raw: unknown, bad: (field: string, problem: string) => never): ApprovalPolicy {
  const policy = parseApprovalPolicy(raw, durationToMs);
  return isPolicyProblem(policy) ? bad(policy.field, policy.problem) : policy;
}

function parseServer(name: string, value: unknown, source: string, defaultApproval?: ApprovalPolicy): ServerConfig {
  const fail = (field: string, problem: string): never => {
    throw configError(`${source}: server "${name}": field "${field}" ${problem}`, name, field);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw configError(`${source}: server "${name}": must be an object, got ${describe(value)}`, name);
  }
  const raw = value as Record<string, unknown>;
  const parsed = RawServerSchema.safeParse(raw);
  if (!parsed.success) {
    const { field, problem } = fieldProblem(parsed.error.issues[0], raw);
    fail(field, problem);
  }
  const s = parsed.data!;
  if (s.env && s.environment) fail('environment', 'conflicts with "env": use one of them');
  if (s.enabled === true && s.disabled === true) fail('disabled', 'conflicts with "enabled": true');
  const enabled = s.enabled !== false && s.disabled !== true;
  // A pinned protocol version pins its era; an `era` beside it must be that one.
  const pinnedEra: ProtocolEra | undefined = s.protocolVersion === undefined ? undefined : s.protocolVersion >= '2026-07-28' ? 'modern' : 'legacy';
  if (pinnedEra && s.era !== undefined && s.era !== pinnedEra) {
    fail('era', `is "${s.era}" but "protocolVersion" ${JSON.stringify(s.protocolVersion)} is of the ${pinnedEra} era: drop one of them`);
  }
  const common = {
    name,
    enabled,
    timeoutMs: s.timeout ?? DEFAULT_TIMEOUT_MS,
    tools: s.tools,
    maxSessions: s.maxSessions ?? 32,
    era: pinnedEra ?? s.era ?? 'auto',
    tasks: s.tasks ?? 'auto',
    ...(s.protocolVersion !== undefined ? { protocolVersion: s.protocolVersion } : {}),
  };
  const approval = s.approval !== undefined ? approvalPolicy(s.approval, fail) : defaultApproval;
  if (approval) Object.assign(common, { approval });
  if (s.command !== undefined && s.url !== undefined) fail('url', 'cannot be combined with "command": a server is either local (command) or remote (url)');
  if (s.command !== undefined) {
    if (s.type && !['stdio', 'local'].includes(s.type)) fail('type', `is "${s.type}" but the server has a "command" (local stdio)`);
    if (s.headers) fail('headers', 'only applies to remote (url) servers');
    if (s.auth !== undefined) fail('auth', 'only applies to remote (url) servers; a local server gets its credentials through "env"');
    const [command, ...restArgs] = Array.isArray(s.command) ? s.command : [s.command];
    if (Array.isArray(s.command) && s.args) fail('args', 'cannot be combined with an array "command": put the arguments in the array');
    return { ...common, transport: 'stdio', command, args: [...restArgs, ...(s.args ?? [])], env: s.env ?? s.environment, cwd: s.cwd };
  }
  if (s.url !== undefined) {
    if (s.type && ['stdio', 'local'].includes(s.type)) fail('type', `is "${s.type}" but the server has a "url" (remote)`);
    if (!/^https?:$/.test(new URL(s.url).protocol)) fail('url', `must be an http or https URL, got ${describe(s.url)}`);
    if (s.env || s.environment || s.cwd || s.args)
      fail(s.env ? 'env' : s.environment ? 'environment' : s.cwd ? 'cwd' : 'args', 'only applies to local (command) servers');
    if (s.auth === undefined) return { ...common, transport: 'http', url: s.url, headers: s.headers };
    const url = new URL(s.url);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
      fail('url', `is plain http to ${url.host}, which is not a loopback host: a server with "auth" needs https (its tokens would cross the network in clear)`);
    const auth = parseAuth(s.auth, fail);
    if (Object.keys(s.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
      fail('headers.Authorization', 'cannot be combined with "auth": the OAuth login sets the Authorization header');
    return { ...common, transport: 'http', url: s.url, headers: s.headers, auth };
  }
  return fail('command', 'or "url" is required: a local server needs a command, a remote one a url');
}

/** Read and parse a JSON config file. */
export function loadMcpConfigFile(path: string): McpConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw configError(`MCP config ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw configError(`MCP config ${path}: is not valid JSON (${(err as Error).message})`);
  }
  return parseMcpConfig(raw, `MCP config ${path}`);
}

/**
 * Expand `${VAR}` in a value from the environment. A missing variable is an error naming the server and
 * the field, never the value (header values are secrets).
 */
export function expandEnv(value: string, where: { server: string; field: string }, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const v = env[name];
    if (v === undefined) {
      // This worker's environment, not the config: another worker (or this one, fixed) may have it.
      throw new McpSourceError(
        McpSourceErrorCodes.McpServerUnavailable,
        `server "${where.server}": field "${where.field}" refers to \${${name}}, which is not set in the environment`,
        { server: where.server, field: where.field, variable: name },
      );
    }
    return v;
  });
}

/**
 * The `${VAR}`s of enabled servers (in `env` and `headers`) that are not set, one message each (naming the
 * server, the field and the variable). The worker says them at start; such a server fails its calls
 * (retryably: a worker that has the variable may take them), and the other servers work.
 */
export function envReferenceProblems(config: McpConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const problems: string[] = [];
  for (const server of Object.values(config.servers)) {
    if (!server.enabled) continue;
    const [field, map] = server.transport === 'stdio' ? ['env', server.env] : ['headers', server.headers];
    const auth = server.transport === 'http' ? server.auth : undefined;
    for (const [k, secret] of [
      ['clientSecret', auth?.clientSecret],
      ['privateKey', auth?.privateKey],
    ] as const) {
      if (secret === undefined) continue;
      try {
        expandEnv(secret, { server: server.name, field: `auth.${k}` }, env);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    for (const [k, v] of Object.entries(map ?? {})) {
      try {
        expandEnv(v, { server: server.name, field: `${field}.${k}` }, env);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
  }
  return problems;
}

export { exposedToolName, sanitize } from '../contract/tool-names.js';
