/**
 * The language model of an agent in workflow code is Temporal's own: `temporalProvider` / `TemporalProvider` from
 * `@temporalio/ai-sdk/workflow` (its workflow entry, in 1.23.0 too), whose `languageModel(id)` runs each call as the
 * activity `invokeModel` that `AiSdkPlugin` registers on the worker (its `modelProvider` answers it), so a model call
 * is in history and never made twice on replay. `mcpAgent` uses it directly.
 *
 * `agentModel` is that model with one thing added: it drops the call's `abortSignal` before the activity. The AI SDK
 * sets one when `generateText` is given `abortSignal` or `timeout`; an AbortSignal cannot cross into an activity (it
 * would arrive as `{}`, and a real provider that hands it to `fetch` fails the call). The workflow's cancellation
 * cancels the activity instead. Without `abortSignal` or `timeout`, `temporalProvider.languageModel(id)` is the same.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { TemporalProvider, temporalProvider, type TemporalProviderOptions } from '@temporalio/ai-sdk/workflow';

/** The call's options without the abort signal, which cannot cross into an activity. */
function withoutAbortSignal(options: LanguageModelV4CallOptions): LanguageModelV4CallOptions {
  const { abortSignal: _abortSignal, ...serializable } = options;
  return serializable;
}

/**
 * Temporal's `temporalProvider.languageModel(modelId)` (`@temporalio/ai-sdk/workflow`; with `activityOptions`, a
 * `TemporalProvider` with those language-model options: timeouts, retries, `streamingTopic`), minus the call's
 * `abortSignal`, which would reach the activity as `{}`. Use it when your `generateText` passes `abortSignal` or
 * `timeout`; otherwise Temporal's own model does the same.
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export function agentModel(modelId: string, activityOptions?: TemporalProviderOptions['languageModel']): LanguageModelV4 {
  const model = (activityOptions ? new TemporalProvider({ languageModel: activityOptions }) : temporalProvider).languageModel(modelId);
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => model.doGenerate(withoutAbortSignal(options)),
    doStream: (options) => model.doStream(withoutAbortSignal(options)),
  };
}
