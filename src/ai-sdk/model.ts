/**
 * The language model of an agent in workflow code: each call is the activity `invokeModel` that `@temporalio/ai-sdk`'s
 * `AiSdkPlugin` registers on the worker (its `modelProvider` answers it), so a model call is recorded in history and
 * never repeated on replay. `@temporalio/ai-sdk` 1.23.0 exports its own workflow-side provider only from the package
 * root, which also loads its activities (not bundleable as workflow code); this adapter needs nothing from it but the
 * activity's name and shape (`{ modelId, options }` → the provider's generate result). Streaming is not offered.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import { ApplicationFailure, proxyActivities, type ActivityOptions } from '@temporalio/workflow';

/** The activity AiSdkPlugin registers for language models. */
interface ModelActivities {
  invokeModel(args: { modelId: string; options: LanguageModelV4CallOptions }): Promise<LanguageModelV4GenerateResult | undefined>;
}

/**
 * A model whose calls run as AiSdkPlugin's `invokeModel` activity (default: 10 minutes per call, Temporal's retries).
 * @experimental agents, tasks and people may still change in a minor release (docs/architecture.md "Experimental").
 */
export function agentModel(modelId: string, activityOptions: ActivityOptions = {}): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'temporal',
    modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
      const { invokeModel } = proxyActivities<ModelActivities>({ startToCloseTimeout: '10 minutes', ...activityOptions });
      // The abort signal cannot cross an activity; the workflow's cancellation cancels the activity instead.
      const { abortSignal: _abortSignal, ...serializable } = options;
      const result = await invokeModel({ modelId, options: serializable });
      if (result === undefined) throw ApplicationFailure.nonRetryable(`model "${modelId}": the model activity returned nothing`, 'ModelFailed');
      const ts = result.response?.timestamp as unknown;
      if (result.response && (typeof ts === 'string' || typeof ts === 'number')) {
        const date = new Date(ts);
        if (!isNaN(date.getTime())) result.response.timestamp = date;
      }
      return result;
    },
    doStream(): PromiseLike<LanguageModelV4StreamResult> {
      throw ApplicationFailure.nonRetryable(`model "${modelId}": streaming is not offered in workflow code; use generateText`, 'InvalidInput');
    },
  };
}
