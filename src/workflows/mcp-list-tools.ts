/**
 * The workflow `mcpListTools`: the tools of one MCP server, listed through a worker (the activity `listMcpTools`,
 * on a session of the worker's pool, with the same config and connection as a tool call). Each tool is as the
 * server sent it: its name, description, `inputSchema` (key order and keywords untouched), `outputSchema` and
 * `annotations` when it has them, and any other field. Every page of `tools/list` is followed (at most
 * MAX_TOOL_PAGES); a server's `tools` allowlist in the MCP config applies.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { McpToolInfo } from '../mcp/index.js';
import { invalidInput, listToolsInputProblem } from './input.js';

export type { McpToolInfo };

/** The input of the workflow `mcpListTools`. */
export interface McpListToolsInput {
  /** The server's name in the worker's MCP config. */
  server: string;
}

/** Attempts of the activity before the listing fails: a server that cannot be reached fails within seconds, not minutes. */
export const LIST_TOOLS_MAX_ATTEMPTS = 3;

const { listMcpTools } = proxyActivities<Activities>({
  // Connect and list within the server's timeout, or wait for a session of a busy server (heartbeating meanwhile).
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: LIST_TOOLS_MAX_ATTEMPTS },
});

/**
 * The workflow: the tools of `server`. An unknown (or disabled) server fails it with `UnknownServer` (naming the
 * configured ones), a wrong input with `InvalidInput`, a server that cannot be reached with `McpServerUnavailable`.
 */
export async function mcpListTools(input: McpListToolsInput): Promise<McpToolInfo[]> {
  const problem = listToolsInputProblem(input);
  if (problem) invalidInput(problem);
  return await listMcpTools({ server: input.server });
}
