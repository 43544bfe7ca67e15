// A user's workflows module with an agent: durable-mcp's workflows and `mcpAgent` from `durable-mcp/ai-sdk`.
export * from '../../src/workflows/index.js';
export { mcpAgent } from '../../src/ai-sdk/index.js';
export { sideBySideAgent } from './side-by-side-workflow.js';
export { abortSignalProbe } from './model-workflow.js';
