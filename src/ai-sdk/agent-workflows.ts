// The workflows module of a worker that runs agents (`durable-mcp dev`, `durable-mcp worker --agent`; bundled by
// src/worker/agent-bundle.ts): durable-mcp's workflows and the agent `mcpAgent`. Your own worker does the same in its
// workflows module (docs/agents.md).
export * from '../workflows/index.js';
export { mcpAgent } from './agent.js';
