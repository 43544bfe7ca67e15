/**
 * The scripted demo model of `durable-mcp dev` (and `worker --agent`) when no model provider is configured
 * (./model-provider.ts): not an LLM, a few lines of code that plan with the demo server's `add` tool, so an agent runs
 * end to end with no key and no network. Every text it writes starts with `[scripted demo model]`.
 *
 * It is stateless and keyed on the prompt only (the same prompt gets the same answer: a model call repeated after a
 * crash, or on another worker, answers alike), and it keeps nothing between calls, so a long-running dev worker does
 * not grow. It runs on the worker side, behind AiSdkPlugin's `invokeModel` activity, like any provider.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamResult,
  ProviderV4,
} from '@ai-sdk/provider';

/** What every text of the demo model starts with: nobody should mistake it for an LLM. */
export const DEMO_LABEL = '[scripted demo model]';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

function text(value: string): LanguageModelV4GenerateResult {
  return { content: [{ type: 'text', text: `${DEMO_LABEL} ${value}` }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}

/** The text of the latest user message. */
function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i]!;
    if (m.role === 'user') return m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ');
  }
  return '';
}

/** At most the first two numbers of a text (bounded: the prompt is the caller's). */
function numbers(value: string): number[] {
  const found: number[] = [];
  for (const m of value.slice(0, 10_000).matchAll(/-?\d{1,15}(?:\.\d{1,15})?/g)) {
    found.push(Number(m[0]));
    if (found.length === 2) break;
  }
  return found;
}

/** The demo model's answer to one call: a call of an `add` tool with the prompt's two numbers, then what the tool said. */
export function demoGenerate(options: LanguageModelV4CallOptions): LanguageModelV4GenerateResult {
  const last = options.prompt[options.prompt.length - 1];
  if (last?.role === 'tool') {
    // The second step: say what the tool returned, or why it did not run (a declined approval arrives as error text).
    const inputs = new Map<string, unknown>();
    for (const m of options.prompt) {
      if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool-call') inputs.set(p.toolCallId, p.input);
    }
    const said = last.content.flatMap((part) => {
      if (part.type !== 'tool-result') return [];
      const o = part.output;
      const input = inputs.get(part.toolCallId);
      const called = `I called ${part.toolName}${input === undefined ? '' : ` with ${typeof input === 'string' ? input : JSON.stringify(input)}`}`;
      if (o.type === 'text') return [`${called}; it returned ${o.value}.`];
      if (o.type === 'error-text') return [`${called}, but got no result: ${o.value}`];
      return [`${called}; it returned ${JSON.stringify(o)}.`];
    });
    return text(said.join(' ') || 'the tool returned nothing.');
  }
  const names = (options.tools ?? []).flatMap((t) => (t.type === 'function' ? [t.name] : []));
  const add = names.find((n) => n === 'add' || n.endsWith('_add'));
  if (!add) {
    return text(`I only know how to add two numbers with a tool named "add", and none of my tools is: ${names.join(', ') || '(no tools)'}.`);
  }
  const [a = 2, b = 40] = numbers(lastUserText(options.prompt));
  return {
    content: [{ type: 'tool-call', toolCallId: 'demo-add-1', toolName: add, input: JSON.stringify({ a, b }) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** The demo model (any id names it). */
export function demoModel(modelId = 'demo'): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'durable-mcp-demo',
    modelId,
    supportedUrls: {},
    doGenerate: async (options: LanguageModelV4CallOptions) => demoGenerate(options),
    doStream(): PromiseLike<LanguageModelV4StreamResult> {
      throw new Error('the scripted demo model does not stream: use generateText');
    },
  };
}

function unsupported(kind: string): never {
  throw new Error(`the scripted demo model has no ${kind} model`);
}

/** The demo provider: every language model id is the demo model. */
export function demoProvider(): ProviderV4 {
  return {
    specificationVersion: 'v4',
    languageModel: (modelId: string) => demoModel(modelId),
    embeddingModel: () => unsupported('embedding'),
    imageModel: () => unsupported('image'),
  };
}
