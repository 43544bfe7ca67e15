/**
 * The workflow code of an agent's worker, for the agent tests and the replay of agent histories: test/ai-sdk's workflows
 * module (durable-mcp's workflows and `mcpAgent`) bundled with `AiSdkPlugin`, whose bundler entry installs the Web APIs
 * the AI SDK needs, as `Worker.create({ workflowsPath, plugins })` bundles it at start (DurableMcpPlugin's bundler hook
 * changes nothing without a codec, and these workers run none). Made once per process: webpack takes 5-10 s a bundle.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { tempDir } from '../helpers/temporal.js';
import { scriptedModel } from './scripted-model.js';

/** test/ai-sdk's workflows module: a user's module with durable-mcp's workflows and `mcpAgent`. */
export const agentWorkflowsPath = fileURLToPath(new URL('./agent-workflows.js', import.meta.url));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The agent worker's bundle (`workflowBundle` of Worker.create), made on the first call of this process. */
export function agentWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: agentWorkflowsPath,
    logger: new DefaultLogger('WARN'),
    plugins: [new AiSdkPlugin({ modelProvider: scriptedModel([{ text: () => '' }]).provider() })],
  });
  return bundle;
}

/** The same bundle written to a file, for a worker process of its own (`workflowBundle: { codePath }`). */
export async function agentWorkflowBundleFile(): Promise<string> {
  const path = join(tempDir('agent-bundle-'), 'agent-workflow-bundle.js');
  writeFileSync(path, (await agentWorkflowBundle()).code);
  return path;
}
