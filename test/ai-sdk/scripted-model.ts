/**
 * A scripted language model for agent tests (no LLM is reachable): the AI SDK's own MockLanguageModelV4, whose answer
 * to each call is the script's step numbered by the assistant messages already in the prompt. It is stateless, so a
 * model call repeated after a crash gets the same answer. `seen` records each call's last tool results.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV4, MockProviderV4 } from 'ai/test';

export type ScriptStep = { tool: string; input?: Record<string, unknown> } | { text: (toolResults: string[]) => string };

/** The text of each tool result in the latest tool message (`error: ` before error results). */
export function lastToolResults(options: LanguageModelV4CallOptions): string[] {
  const last = options.prompt[options.prompt.length - 1];
  if (!last || last.role !== 'tool') return [];
  return last.content.flatMap((part) => {
    if (part.type !== 'tool-result') return [];
    const o = part.output;
    if (o.type === 'text') return [o.value];
    if (o.type === 'error-text') return [`error: ${o.value}`];
    return [JSON.stringify(o)];
  });
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

export function scriptedModel(script: ScriptStep[] | ((call: number) => ScriptStep)) {
  const seen: string[][] = [];
  const stepOf = (n: number): ScriptStep => (typeof script === 'function' ? script(n) : (script[Math.min(n, script.length - 1)] as ScriptStep));
  const model = new MockLanguageModelV4({
    doGenerate: async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
      const n = options.prompt.filter((m) => m.role === 'assistant').length;
      const results = lastToolResults(options);
      seen.push(results);
      const step = stepOf(n);
      if ('tool' in step) {
        return {
          content: [{ type: 'tool-call', toolCallId: `call-${n}`, toolName: step.tool, input: JSON.stringify(step.input ?? {}) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: step.text(results) }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
  return { model, seen, provider: (id = 'scripted') => new MockProviderV4({ languageModels: { [id]: model } }) };
}
