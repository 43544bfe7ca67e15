/** `tools <server>`: the tools of one MCP server, listed by a worker (the workflow `mcpListTools`) with the worker's MCP config. */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { ToolCallFailedError, type McpToolInfo } from '../../client/index.js';
import { toolCallFailure } from '../../client/errors.js';
import { terminalSafe } from '../terminal.js';
import { client, print, UsageError } from './common.js';

/** What to do about a failed listing, by failure type (the failure's own message says what went wrong). */
const FIXES: Partial<Record<string, string>> = {
  UnknownServer: "name one of the configured servers, or add it to the worker's MCP config (--mcp-config or MCP_CONFIG) and restart the worker",
  McpServerUnavailable: "check that the server runs and its command or url in the worker's MCP config",
  McpConfigInvalid: "fix the server's entry in the worker's MCP config",
};

/** Longest name column of the text output: a longer name still prints whole, and pushes its description. */
const NAME_COLUMN = 32;

/** One line per tool: its name and the first line of its description (server text: control characters escaped). */
export function toolLines(tools: McpToolInfo[]): string[] {
  const width = Math.min(NAME_COLUMN, Math.max(0, ...tools.map((t) => t.name.length)));
  return tools.map((t) => {
    const summary = typeof t.description === 'string' ? (t.description.trim().split(/\r?\n/)[0] ?? '') : '';
    return terminalSafe(summary ? `${t.name.padEnd(width)}  ${summary}` : t.name);
  });
}

export function toolsCommand(program: Command): void {
  program
    .command('tools <server>')
    .description("List a server's tools through a worker (the mcpListTools workflow): one line per tool, or with --json each as the server sent it")
    .option('--json', 'machine-readable output: {server, workflowId, tools}, each tool as the server sent it (inputSchema untouched)')
    .action(async (server: string, opts: { json?: boolean }) => {
      if (server.trim() === '') throw new UsageError('<server> must be the name of a server in the worker\'s MCP config, got ""');
      const c = await client();
      const workflowId = `mcp-tools-${server}-${randomUUID().slice(0, 8)}`;
      let tools: McpToolInfo[];
      try {
        tools = await c.listTools(server, { workflowId });
      } catch (err) {
        const fix = err instanceof ToolCallFailedError ? FIXES[err.type] : undefined;
        if (!fix || !(err instanceof ToolCallFailedError)) throw err;
        throw toolCallFailure({ workflowId, type: err.type, message: `${err.failureMessage}; ${fix}`, server, operation: 'tools/list' }, err);
      }
      if (opts.json) return print(true, { server, workflowId, tools }, () => '');
      if (tools.length === 0) console.error(`server "${terminalSafe(server)}" lists no tools`);
      else console.log(toolLines(tools).join('\n'));
    });
}
