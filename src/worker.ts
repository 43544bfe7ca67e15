/**
 * `durable-mcp/worker`: durable-mcp in a Temporal worker. `DurableMcpPlugin` (src/worker/plugin.ts) brings it into any
 * `Worker.create`; `createWorker(options)` is a worker of its own built with that plugin. The process around it
 * (`durable-mcp worker`) is src/cli/worker-command.ts; the worker's parts are in src/worker/.
 */
import type { ProviderV4 } from '@ai-sdk/provider';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { EncryptionCodec } from './codec/index.js';
import { DEFAULT_TASK_QUEUE } from './contract/message-names.js';
import type { SessionPool } from './mcp/index.js';
import { DurableMcpPlugin, type DurableMcpPluginOptions } from './worker/plugin.js';
import { tracesRequested } from './telemetry/metrics.js';

export { createActivities, type ActivityDeps } from './activities/index.js';
export { DurableMcpPlugin, type DurableMcpPluginOptions } from './worker/plugin.js';
export { OAuthEncryptionRequiredError, type OAuthWorkerOptions } from './worker/oauth.js';
export { connectFromEnv } from './worker/connection.js';
export { workflowsPath, workflowBundlePath } from './worker/workflow-code.js';
export { DEFAULT_TASK_QUEUE };
export { modelProviderChoice, modelProviderFromEnv, ModelProviderConfigError, type ModelProviderChoice } from './worker/model-provider.js';
export { demoProvider, demoModel, DEMO_LABEL } from './worker/demo-model.js';

/**
 * Run agents too: the workflow `mcpAgent` beside durable-mcp's workflows (a bundle made once and cached, see
 * src/worker/agent-bundle.ts) and `@temporalio/ai-sdk`'s AiSdkPlugin with this model provider.
 */
export interface AgentWorkerOptions {
  /** The models of the agents (AiSdkPlugin's `modelProvider`), e.g. `(await modelProviderFromEnv()).provider`. */
  modelProvider: ProviderV4;
  /** Where the bundle is kept (default: DURABLE_MCP_CACHE_DIR, else $XDG_CACHE_HOME/durable-mcp, else ~/.cache/durable-mcp). */
  cacheDir?: string;
}

export interface CreateWorkerOptions extends DurableMcpPluginOptions {
  /** A connection to Temporal; default: from envconfig (TEMPORAL_ADDRESS etc., else localhost:7233). */
  connection?: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /**
   * Your own workflows module, which must also export this package's workflows
   * (`export * from 'durable-mcp/workflows'`). Default: the prebuilt bundle of durable-mcp's workflows.
   */
  workflowsPath?: string;
  /** Your workflows, bundled already (`bundleWorkflowCode`): a worker started again reuses it instead of bundling again. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra worker options (e.g. maxCachedWorkflows: 0 to replay on every task, shutdownGraceTime, more plugins). */
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'>>;
  /** Run `mcpAgent` too, with this model provider (not with `workflowsPath`/`workflowBundle`: export mcpAgent from yours). */
  agent?: AgentWorkerOptions;
}

export interface DurableMcpWorker {
  readonly worker: Worker;
  readonly pool: SessionPool;
  readonly taskQueue: string;
  /** Problems found at start that leave one server failing (e.g. an unset `${VAR}`); the worker says them. */
  readonly warnings: string[];
  /** The payload codec the worker encrypts with (undefined: payloads in plaintext). */
  readonly encryption?: EncryptionCodec;
  /** With `agent`: the workflow bundle with `mcpAgent`, and whether it was made at this start (else found in the cache). */
  readonly agentBundle?: { codePath: string; built: boolean };
  /** Run until shutdown; closes every MCP session afterwards. */
  run(): Promise<void>;
  /** Run until `promise` settles, then shut down; closes every MCP session afterwards. */
  runUntil<R>(promise: Promise<R> | (() => Promise<R>)): Promise<R>;
  shutdown(): void;
}

/** A worker of durable-mcp's workflows and activities (or yours beside them: `workflowsPath`), through DurableMcpPlugin. */
export async function createWorker(options: CreateWorkerOptions): Promise<DurableMcpWorker> {
  const { connection, namespace, taskQueue = DEFAULT_TASK_QUEUE, workflowsPath, workflowBundle, workerOptions, agent, ...pluginOptions } = options;
  if (agent && (workflowsPath || workflowBundle)) {
    throw new Error(
      'createWorker: "agent" runs durable-mcp\'s own workflows with mcpAgent; with your own workflows, export mcpAgent from them and add AiSdkPlugin',
    );
  }
  // Bad config fails here, before anything connects.
  const plugin = new DurableMcpPlugin(pluginOptions);
  let agentBundle: { codePath: string; built: boolean } | undefined;
  const agentPlugins: NonNullable<WorkerOptions['plugins']> = [];
  if (agent) {
    const { agentWorkflowBundle, defaultCacheDir } = await import('./worker/agent-bundle.js');
    const { AiSdkPlugin } = await import('@temporalio/ai-sdk');
    const traced = options.tracing === undefined ? tracesRequested() : options.tracing !== false;
    agentBundle = await agentWorkflowBundle({ cacheDir: agent.cacheDir ?? defaultCacheDir(), traced, encodedFailures: !!plugin.encryption }).catch(
      async (err: unknown) => {
        await plugin.close();
        throw err;
      },
    );
    agentPlugins.push(new AiSdkPlugin({ modelProvider: agent.modelProvider }));
  }
  const code = agentBundle
    ? { workflowBundle: { codePath: agentBundle.codePath } }
    : workflowBundle
      ? { workflowBundle }
      : workflowsPath
        ? { workflowsPath }
        : {};
  const worker = await Worker.create({
    ...workerOptions,
    ...(connection ? { connection } : {}),
    ...(namespace ? { namespace } : {}),
    taskQueue,
    ...code,
    plugins: [plugin, ...agentPlugins, ...(workerOptions?.plugins ?? [])],
  }).catch(async (err: unknown) => {
    // The worker never runs: the plugin's own connection and sessions would hold the process open.
    await plugin.close();
    throw err;
  });
  return {
    worker,
    pool: plugin.pool,
    taskQueue,
    warnings: plugin.warnings,
    ...(plugin.encryption ? { encryption: plugin.encryption } : {}),
    ...(agentBundle ? { agentBundle } : {}),
    run: () => worker.run(),
    runUntil: (promise) => worker.runUntil(promise),
    shutdown() {
      plugin.releaseWaitingCalls();
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}
