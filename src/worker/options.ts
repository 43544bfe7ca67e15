/**
 * DurableMcpPlugin's options, and what they resolve to before anything connects: the MCP config, the payload codec,
 * the logins of servers behind OAuth, the pool of MCP sessions and the warnings to say. Bad config, bad key material,
 * no key where encryption is required and servers behind OAuth without a key throw here.
 */
import type { LoginDeps } from '../activities/index.js';
import { resolveEncryption, type EncryptionCodec } from '../codec/index.js';
import { envReferenceProblems, loadMcpConfigFile, parseMcpConfig, TokenCache, type McpConfig, type PoolOptions, type SessionPool } from '../mcp/index.js';
import type { TracingSetup } from '../telemetry/tracing.js';
import { loginDeps, loginPool, type OAuthWorkerOptions } from './oauth.js';

export interface DurableMcpPluginOptions {
  /** The MCP config: a parsed config, a raw config object, or a path to a JSON file. */
  mcpConfig: McpConfig | Record<string, unknown> | string;
  pool?: PoolOptions;
  /**
   * OpenTelemetry tracing: default from the OTLP environment variables (off when none is set); `false` turns
   * it off, a setup (span processor and resource) turns it on with that processor.
   */
  tracing?: TracingSetup | false;
  /**
   * The payload codec of workflow and activity inputs and results, signals, updates, queries and memo (the activities'
   * own client too): default the keys of DURABLE_MCP_ENCRYPTION_KEYS / DURABLE_MCP_ENCRYPTION_KEYS_FILE (none when unset,
   * bad material throws a CodecError (EncryptionConfig) before anything connects); `false` for none. Appended to the worker's
   * `dataConverter`'s codecs, if any.
   */
  encryption?: EncryptionCodec | false;
  /**
   * Refuse to run without a payload codec (a CodecError, EncryptionRequired, before anything connects), as
   * DURABLE_MCP_REQUIRE_ENCRYPTION=1 or the config's `"requireEncryption": true` do.
   */
  requireEncryption?: boolean;
  /** Servers behind OAuth (`"auth"` in their config; docs/oauth.md). */
  oauth?: OAuthWorkerOptions;
  /**
   * Offer the Nexus service `durable-mcp` (operations `callTool`, `listTools`) on the worker's task queue, for workflows in
   * any SDK language and namespace behind a Nexus endpoint (docs/nexus.md). Default off. Needs `@temporalio/nexus`.
   * @experimental Nexus is in Public Preview in the TypeScript SDK.
   */
  nexus?: boolean;
}

export interface ResolvedPluginOptions {
  config: McpConfig;
  encryption: EncryptionCodec | undefined;
  logins: LoginDeps | undefined;
  pool: SessionPool;
  /** Problems found at start that leave one server failing (e.g. an unset `${VAR}`), and advice. */
  warnings: string[];
}

export function resolvePluginOptions(options: DurableMcpPluginOptions): ResolvedPluginOptions {
  const config = resolveMcpConfig(options.mcpConfig);
  const requiredBy = options.requireEncryption
    ? 'the requireEncryption option'
    : config.requireEncryption
      ? '"requireEncryption" in the MCP config'
      : undefined;
  const encryption = resolveEncryption(options.encryption, process.env, { who: 'the worker', ...(requiredBy ? { requiredBy } : {}) });
  const warnings = envReferenceProblems(config);
  const tokens = new TokenCache();
  const logins = loginDeps(config, options.oauth, encryption, tokens, warnings);
  return { config, encryption, logins, pool: loginPool(config, options.pool, tokens), warnings };
}

function resolveMcpConfig(config: DurableMcpPluginOptions['mcpConfig']): McpConfig {
  if (typeof config === 'string') return loadMcpConfigFile(config);
  const maybeParsed = config as McpConfig;
  if (maybeParsed.servers && Object.values(maybeParsed.servers).every((s: any) => s && 'transport' in s && 'timeoutMs' in s)) return maybeParsed;
  return parseMcpConfig(config);
}
