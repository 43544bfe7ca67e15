/**
 * A worker process for the agent tests that kill one: DurableMcpPlugin and AiSdkPlugin in one Worker.create, the
 * scripted model of `AGENT_SCRIPT` ("ask-name": ask a name, then say what the tool returned). Prints "agent worker:
 * ready" once polling, and each model call's last tool results as "model saw: <json>".
 */
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DurableMcpPlugin } from '../../src/worker.js';
import { scriptedModel, type ScriptStep } from './scripted-model.js';

const script: ScriptStep[] = [{ tool: 'fx_ask_name' }, { text: (results) => `The tool said: ${results.join(' | ')}` }];
const scripted = scriptedModel(script);
const provider = scripted.provider();
const model = provider.languageModel('scripted');
const generate = model.doGenerate.bind(model);
model.doGenerate = async (options) => {
  const r = await generate(options);
  console.log(`model saw: ${JSON.stringify(scripted.seen.at(-1))}`);
  return r;
};
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  taskQueue: process.env.TASK_QUEUE!,
  // AGENT_WORKFLOW_BUNDLE: a bundle file of ./agent-workflows.js (./agent-bundle.ts); else it is bundled here at start.
  ...(process.env.AGENT_WORKFLOW_BUNDLE
    ? { workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE } }
    : { workflowsPath: new URL('./agent-workflows.js', import.meta.url).pathname }),
  plugins: [new DurableMcpPlugin({ mcpConfig: process.env.MCP_CONFIG!, encryption: false, tracing: false }), new AiSdkPlugin({ modelProvider: provider })],
});
const running = worker.run();
console.log('agent worker: ready');
await running;
await connection.close();
