/**
 * The model provider of the agents that `durable-mcp dev` and `durable-mcp worker --agent` run (AiSdkPlugin's
 * `modelProvider`), chosen from the environment (docs/configuration.md "Agents: the model"):
 *
 * - `DURABLE_MCP_MODEL_PROVIDER` = `openai` | `anthropic` | `openai-compatible` | `demo` chooses explicitly;
 * - otherwise the first that is set of `DURABLE_MCP_MODEL_BASE_URL` (any OpenAI-compatible server: Ollama, vLLM),
 *   `OPENAI_API_KEY` (OpenAI), `ANTHROPIC_API_KEY` (Anthropic);
 * - otherwise the scripted demo model (./demo-model.ts): no key, no network, labelled as scripted.
 *
 * The provider packages (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`) are loaded only when
 * chosen; a missing one is a one-line error that says what to install. Keys stay in this process: they are read
 * here, given to the provider, and never put in a label, a log line, a workflow's input or its history.
 */
import type { ProviderV4 } from '@ai-sdk/provider';
import { demoProvider } from './demo-model.js';

export const MODEL_PROVIDER_ENV = 'DURABLE_MCP_MODEL_PROVIDER';
export const MODEL_BASE_URL_ENV = 'DURABLE_MCP_MODEL_BASE_URL';
export const MODEL_API_KEY_ENV = 'DURABLE_MCP_MODEL_API_KEY';

export type ModelProviderKind = 'openai' | 'anthropic' | 'openai-compatible' | 'demo';
const KINDS: readonly ModelProviderKind[] = ['openai', 'anthropic', 'openai-compatible', 'demo'];

/** The provider chosen from the environment, without loading it: what the banner says (never a key). */
export interface ModelProviderChoice {
  kind: ModelProviderKind;
  /** One line for a banner, e.g. `openai (OPENAI_API_KEY)`, or the demo model's label. No key, ever. */
  label: string;
  /** The npm package the provider comes from (none for the demo model). */
  package?: '@ai-sdk/openai' | '@ai-sdk/anthropic' | '@ai-sdk/openai-compatible';
  /** The OpenAI-compatible server's base URL (openai-compatible only; credentials in it are refused). */
  baseURL?: string;
}

/** A model provider setting that cannot work: names the variable and what is wrong with its value. */
export class ModelProviderConfigError extends Error {
  override name = 'ModelProviderConfigError';
}

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

function baseUrlOf(env: NodeJS.ProcessEnv): string {
  const raw = env[MODEL_BASE_URL_ENV]?.trim();
  if (!raw) {
    throw new ModelProviderConfigError(
      `${MODEL_PROVIDER_ENV}=openai-compatible needs ${MODEL_BASE_URL_ENV}, the server's base URL (e.g. http://127.0.0.1:11434/v1 for Ollama)`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The value is not shown: a key pasted into the wrong variable would be printed.
    throw new ModelProviderConfigError(
      `${MODEL_BASE_URL_ENV} must be an http(s) URL, got ${raw.length} characters that are not a URL (not shown: they may hold a key)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ModelProviderConfigError(`${MODEL_BASE_URL_ENV} must be an http(s) URL, got a ${url.protocol} URL`);
  // A key goes in DURABLE_MCP_MODEL_API_KEY, never in the URL (the URL is printed on the banner).
  if (url.username || url.password) throw new ModelProviderConfigError(`${MODEL_BASE_URL_ENV} must not hold credentials: put the key in ${MODEL_API_KEY_ENV}`);
  let end = raw.length;
  while (end > 0 && raw[end - 1] === '/') end--;
  return raw.slice(0, end);
}

/** The base URL as a banner shows it: without its query and fragment, which may hold a key (`?api_key=…`). */
function shownUrl(baseURL: string): string {
  const url = new URL(baseURL);
  if (url.search === '' && url.hash === '') return baseURL;
  return `${url.origin}${url.pathname === '/' ? '' : url.pathname} (query not shown)`;
}

/** Which provider the environment chooses (pure: loads nothing). Throws ModelProviderConfigError on a bad setting. */
export function modelProviderChoice(env: NodeJS.ProcessEnv = process.env): ModelProviderChoice {
  const explicit = env[MODEL_PROVIDER_ENV]?.trim();
  let kind: ModelProviderKind;
  if (set(explicit)) {
    if (!KINDS.includes(explicit as ModelProviderKind)) {
      throw new ModelProviderConfigError(`${MODEL_PROVIDER_ENV} must be one of ${KINDS.join(', ')}, got ${JSON.stringify(explicit.slice(0, 100))}`);
    }
    kind = explicit as ModelProviderKind;
  } else if (set(env[MODEL_BASE_URL_ENV])) kind = 'openai-compatible';
  else if (set(env.OPENAI_API_KEY)) kind = 'openai';
  else if (set(env.ANTHROPIC_API_KEY)) kind = 'anthropic';
  else kind = 'demo';
  const how = set(explicit) ? `${MODEL_PROVIDER_ENV}=${kind}` : undefined;
  switch (kind) {
    case 'openai':
      if (!set(env.OPENAI_API_KEY)) throw new ModelProviderConfigError(`${MODEL_PROVIDER_ENV}=openai needs OPENAI_API_KEY`);
      return { kind, package: '@ai-sdk/openai', label: `OpenAI (${how ?? 'OPENAI_API_KEY is set'}; key not shown)` };
    case 'anthropic':
      if (!set(env.ANTHROPIC_API_KEY)) throw new ModelProviderConfigError(`${MODEL_PROVIDER_ENV}=anthropic needs ANTHROPIC_API_KEY`);
      return { kind, package: '@ai-sdk/anthropic', label: `Anthropic (${how ?? 'ANTHROPIC_API_KEY is set'}; key not shown)` };
    case 'openai-compatible': {
      const baseURL = baseUrlOf(env);
      const key = set(env[MODEL_API_KEY_ENV]) ? `, key from ${MODEL_API_KEY_ENV} (not shown)` : '';
      return { kind, package: '@ai-sdk/openai-compatible', baseURL, label: `OpenAI-compatible server at ${shownUrl(baseURL)}${key}` };
    }
    case 'demo':
      return {
        kind,
        label: `scripted demo model (not an LLM; for a real one set OPENAI_API_KEY, ANTHROPIC_API_KEY or ${MODEL_BASE_URL_ENV})`,
      };
  }
}

/** A provider package that is not installed: the one line that says what to install. */
function missing(pkg: string): (err: unknown) => never {
  return (err) => {
    const code = (err as { code?: string })?.code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((err as Error).message).includes(pkg)) {
      throw new ModelProviderConfigError(`the model provider package ${pkg} is not installed: npm install ${pkg}`);
    }
    throw err;
  };
}

/** The provider the environment chooses, loaded, with its choice (for the banner). */
export async function modelProviderFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<{ provider: ProviderV4; choice: ModelProviderChoice }> {
  const choice = modelProviderChoice(env);
  switch (choice.kind) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai').catch(missing('@ai-sdk/openai'));
      // OPENAI_BASE_URL, when set, is read by the provider itself.
      return { provider: createOpenAI({ apiKey: env.OPENAI_API_KEY!.trim() }), choice };
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic').catch(missing('@ai-sdk/anthropic'));
      return { provider: createAnthropic({ apiKey: env.ANTHROPIC_API_KEY!.trim() }), choice };
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible').catch(missing('@ai-sdk/openai-compatible'));
      const apiKey = env[MODEL_API_KEY_ENV]?.trim();
      return { provider: createOpenAICompatible({ name: 'openai-compatible', baseURL: choice.baseURL!, ...(apiKey ? { apiKey } : {}) }), choice };
    }
    case 'demo':
      return { provider: demoProvider(), choice };
  }
}
