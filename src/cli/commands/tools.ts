/**
 * `tools <server>`: the tools of one MCP server, listed by a worker (the workflow `mcpListTools`) with the worker's MCP
 * config. A server behind OAuth that needs a sign-in first: the command shows the sign-in (its link, and where else it
 * is listed) on stderr and waits for it, as `call --wait` waits for an answer; Ctrl-C stops waiting and cancels the
 * listing (the sign-in stays pending for whoever answers it).
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { ToolCallFailure, type McpToolInfo, type LoginWait } from '../../client/index.js';
import { SHARED_PRINCIPAL } from '../../contract/login.js';
import { terminalSafe } from '../terminal.js';
import { client, duration, print, UsageError } from './common.js';

/** What to do about a failed listing, by failure type (the failure's own message says what went wrong). */
const FIXES: Partial<Record<string, string>> = {
  UnknownServer: "name one of the configured servers, or add it to the worker's MCP config (--mcp-config or MCP_CONFIG) and restart the worker",
  McpServerUnavailable: "check that the server runs and its command or url in the worker's MCP config",
  McpConfigInvalid: "fix the server's entry in the worker's MCP config",
  AuthorizationRequired: 'run it again and sign in at the link it shows before the sign-in expires (--expires-in, default 24h)',
  AuthorizationFailed: 'check the server\'s "auth" in the worker\'s MCP config and its authorization server (docs/oauth.md)',
};

/** What a person does about a sign-in the listing waits for (stderr: stdout stays the listing). */
export function loginLines(server: string, { loginWorkflowId, request, status }: LoginWait): string[] {
  const login = terminalSafe(loginWorkflowId);
  // A per-call server's login is one principal's: whoever signs in, signs in for that principal's calls only.
  const whose =
    status.principal === SHARED_PRINCIPAL ? 'for every call to the server' : `as "${terminalSafe(status.principal)}" for every call that names that principal`;
  return [
    `durable-mcp: server "${terminalSafe(server)}" needs a sign-in before it lists its tools: ${terminalSafe(request.prompt)}`,
    "  open this link in a browser and sign in (the browser comes back to the inbox's /oauth/callback):",
    `  ${terminalSafe(request.url ?? '')}`,
    `  it is request ${terminalSafe(request.id)} of ${login} (listed by the inbox and \`durable-mcp pending ${login}\`),`,
    `  ${request.expiresAt ? `expiring at ${terminalSafe(request.expiresAt)}; ` : ''}whoever signs in, signs in ${whose}`,
    'waiting for the sign-in (Ctrl-C stops waiting and cancels the listing; the sign-in stays pending)',
  ];
}

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
    .option('--principal <name>', 'a server behind OAuth that signs in per call ("principal": "per-call"): whose login the listing uses')
    .option(
      '--expires-in <duration>',
      'a server behind OAuth: how long the sign-in the listing asks for waits: ms, or "4s", "24h" (default 24h)',
      duration('--expires-in', 'elicitation.expiresIn'),
    )
    .action(async (server: string, opts: { json?: boolean; principal?: string; expiresIn?: number | string }) => {
      if (server.trim() === '') throw new UsageError('<server> must be the name of a server in the worker\'s MCP config, got ""');
      const c = await client();
      const workflowId = `mcp-tools-${server}-${randomUUID().slice(0, 8)}`;
      // Ctrl-C while the listing waits for a sign-in: the listing stops too (nobody waits for its result any more).
      const interrupted = () => {
        // The cancellation is recorded by Temporal at once; the listing ends CANCELLED when its worker takes it.
        void c.client.workflow
          .getHandle(workflowId)
          .cancel()
          .then(
            () => `durable-mcp: stopped waiting; listing ${workflowId} cancelled (a pending sign-in stays pending)`,
            (err: unknown) => `durable-mcp: stopped waiting; listing ${workflowId} not cancelled: ${err instanceof Error ? err.message : String(err)}`,
          )
          .then((line) => {
            if (!opts.json) console.error(terminalSafe(line));
            process.exit(130);
          });
      };
      const onLoginRequest = (pending: LoginWait) => {
        // Before the lines that say so: a Ctrl-C right after them finds the handler.
        if (!process.listeners('SIGINT').includes(interrupted)) process.once('SIGINT', interrupted);
        if (opts.json) console.error(JSON.stringify({ event: 'sign-in', server, workflowId: pending.loginWorkflowId, request: pending.request }));
        else console.error(loginLines(server, pending).join('\n'));
      };
      let tools: McpToolInfo[];
      try {
        tools = await c.listTools(server, {
          workflowId,
          onLoginRequest,
          ...(opts.principal !== undefined ? { principal: opts.principal } : {}),
          ...(opts.expiresIn !== undefined ? { expiresIn: opts.expiresIn } : {}),
        });
      } catch (err) {
        const fix = err instanceof ToolCallFailure ? FIXES[err.type] : undefined;
        if (!fix || !(err instanceof ToolCallFailure)) throw err;
        throw new ToolCallFailure({ workflowId, type: err.type, message: `${err.failureMessage}; ${fix}`, server, operation: 'tools/list' }, err);
      } finally {
        process.removeListener('SIGINT', interrupted);
      }
      if (opts.json) return print(true, { server, workflowId, tools }, () => '');
      if (tools.length === 0) console.error(`server "${terminalSafe(server)}" lists no tools`);
      else console.log(toolLines(tools).join('\n'));
    });
}
