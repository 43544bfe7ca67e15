// What the model activity receives when generateText is given an abort signal: through Temporal's
// `temporalProvider`, and through durable-mcp's `agentModel` (docs/agents.md, "agentModel").
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText } from 'ai';
import { agentModel } from '../../src/ai-sdk/index.js';

export async function abortSignalProbe(through: 'agentModel' | 'temporalProvider'): Promise<string> {
  const model = through === 'agentModel' ? agentModel('probe') : temporalProvider.languageModel('probe');
  const result = await generateText({ model, prompt: 'hi', abortSignal: new AbortController().signal, maxRetries: 0 });
  return result.text;
}
