/**
 * The workflow code of a worker that runs agents (`durable-mcp dev`, `durable-mcp worker --agent`): durable-mcp's
 * workflows and `mcpAgent` (src/ai-sdk/agent-workflows.ts), bundled with `@temporalio/ai-sdk`'s AiSdkPlugin (its bundler
 * entry installs the Web APIs the AI SDK needs), with tracing's workflow interceptors and encoded failures when the
 * worker has them. Webpack takes 5-20 s, so the bundle is made once and kept in a cache folder (DURABLE_MCP_CACHE_DIR,
 * else $XDG_CACHE_HOME/durable-mcp, else ~/.cache/durable-mcp), named by a hash of everything that goes into it (./bundle-inputs.ts): a start that
 * changed nothing reuses it, and clones of the same code share it (a fresh data folder, as tests make, costs nothing).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodedFailureConverterPath } from '../codec/index.js';
import { bundleInputsHash } from './bundle-inputs.js';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..'); // dist/src
/** The compiled workflows module of an agent worker: durable-mcp's workflows and `mcpAgent`. */
export const agentWorkflowsPath = join(src, 'ai-sdk', 'agent-workflows.js');

/** Where `dev` and `worker --agent` keep the bundle: DURABLE_MCP_CACHE_DIR, else $XDG_CACHE_HOME/durable-mcp, else ~/.cache/durable-mcp. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DURABLE_MCP_CACHE_DIR?.trim()) return resolve(env.DURABLE_MCP_CACHE_DIR.trim());
  return join(env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache'), 'durable-mcp');
}

export interface AgentBundleOptions {
  /** The folder the bundle is kept in (created if missing). */
  cacheDir: string;
  /** With OpenTelemetry's workflow interceptors (tracing on). */
  traced: boolean;
  /** With durable-mcp's encoded failures (a payload codec). */
  encodedFailures: boolean;
}

/** The bundle file, made now (`built: true`) or found in the cache. */
export interface AgentBundle {
  codePath: string;
  built: boolean;
}

/** Bundles kept in a cache folder (other clones and versions share it), beyond which the oldest go. */
const KEEP = 8;

/** Keep the newest KEEP bundles; never remove one written in the last hour (another worker may be about to read it). */
function prune(dir: string): void {
  const bundles = readdirSync(dir)
    .filter((name) => /^agent-bundle-[a-z-]*[0-9a-f]{16}\.js$/.test(name))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of bundles.slice(KEEP)) if (Date.now() - old.mtime > 3_600_000) rmSync(old.path, { force: true });
}

/** The agent worker's workflow bundle: from the cache when nothing that goes into it changed, else made and kept. */
export async function agentWorkflowBundle(options: AgentBundleOptions): Promise<AgentBundle> {
  const variant = `${options.traced ? 'traced-' : ''}${options.encodedFailures ? 'encoded-failures-' : ''}`;
  const hash = bundleInputsHash(`agent ${variant}`);
  const dir = resolve(options.cacheDir);
  const codePath = join(dir, `agent-bundle-${variant}${hash.slice(0, 16)}.js`);
  if (existsSync(codePath)) return { codePath, built: false };
  // Loaded only here: webpack (through the worker's bundler) and the AI SDK plugin are needed only to make a bundle.
  // One after the other: concurrent imports of one ES module (ai, through the plugin) trip Node.
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { AiSdkPlugin } = await import('@temporalio/ai-sdk');
  const { demoProvider } = await import('./demo-model.js');
  const { workflowTracingModule } = await import('../telemetry/tracing.js');
  const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } as any;
  const { code } = await bundleWorkflowCode({
    workflowsPath: agentWorkflowsPath,
    workflowInterceptorModules: options.traced ? [workflowTracingModule] : [],
    ...(options.encodedFailures ? { failureConverterPath: encodedFailureConverterPath } : {}),
    // Only its bundler hook is used here (the polyfills first); the worker gets its own plugin with the real provider.
    plugins: [new AiSdkPlugin({ modelProvider: demoProvider() })],
    logger,
  });
  mkdirSync(dir, { recursive: true });
  const partial = `${codePath}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, codePath); // whole or not at all: another worker may be reading the folder
  prune(dir);
  return { codePath, built: true };
}
