/**
 * The conformance run's workflows: durable-mcp's own (every tool call is an `mcpToolCall`), plus
 * `conformanceListTools`, which lists a server's tools through the worker's `listMcpTools` activity: the tools
 * as the worker's session saw them, which some scenarios check (a schema preserved, an invalid tool left out).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../src/activities/index.js';

export * from '../../src/workflows/index.js';

const { listMcpTools } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } });

export async function conformanceListTools(server: string): ReturnType<Activities['listMcpTools']> {
  return listMcpTools({ server });
}
