// The scripted model of the tests (no LLM needed): the AI SDK's MockLanguageModelV4. It asks for the budget, pays bob
// what the person allowed, then says what happened, reading each tool result from the prompt.
import { MockLanguageModelV4, MockProviderV4 } from 'ai/test';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const toolCall = (id, toolName, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const say = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });

/** The latest tool result's text (error results too). */
function lastResult(prompt) {
  const last = prompt.at(-1);
  const part = last?.role === 'tool' ? last.content.find((p) => p.type === 'tool-result') : undefined;
  return part ? String(part.output.value) : '';
}

export function scriptedProvider() {
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const step = prompt.filter((m) => m.role === 'assistant').length;
      const seen = lastResult(prompt);
      if (step === 0) return toolCall('c0', 'bank_ask_budget', {});
      const budget = /^budget: (\d+)$/.exec(seen);
      if (step === 1 && budget) return toolCall('c1', 'bank_transfer', { to: 'bob', amount: Number(budget[1]) });
      return say(`Done. The bank said: ${seen}`);
    },
  });
  return new MockProviderV4({ languageModels: { assistant: model } });
}
