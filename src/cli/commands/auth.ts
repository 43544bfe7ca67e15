/** `auth list` (the logins of servers behind OAuth, without any secret) and `auth logout <server> [--principal P]`. */
import type { Command } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import { unknownWorkflow } from '../../client/errors.js';
import { resendUnprocessed } from '../../client/workers.js';
import { loginWorkflowId, SHARED_PRINCIPAL, type LoginStatus } from '../../contract/login.js';
import { LOGIN_STATUS_QUERY, LOGOUT_UPDATE } from '../../contract/message-names.js';
import { terminalSafe } from '../terminal.js';
import { client, print } from './common.js';

/**
 * One login on one line. The issuer and the scopes are what an authorization server sent, and the other fields come
 * from a workflow's query: all of it escaped for the terminal (src/cli/terminal.ts).
 */
export const loginLine = (s: LoginStatus): string =>
  terminalSafe(
    [
      `${s.server}${s.principal === SHARED_PRINCIPAL ? '' : ` (principal ${s.principal})`}: ${s.state}`,
      s.issuer ? `at ${s.issuer}` : '',
      s.scopes ? `scopes ${s.scopes}` : '',
      s.expiresAt ? `token expires ${s.expiresAt}` : '',
      s.refreshable ? 'refreshable' : '',
      s.requestId ? `sign-in request ${s.requestId} pending` : '',
      s.waiting ? `${s.waiting} call(s) waiting` : '',
    ]
      .filter(Boolean)
      .join(', '),
  );

export function authCommands(program: Command): void {
  const auth = program.command('auth').description('The logins of servers behind OAuth ("auth" in the MCP config)');
  auth
    .command('list')
    .description('Every login (server, principal, signed in or not, issuer, scopes, expiry): never a token')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const c = (await client()).client;
      const rows: Array<LoginStatus | { workflowId: string; unreachable: string }> = [];
      for await (const wf of c.workflow.list({ query: `WorkflowType = 'mcpLogin' AND ExecutionStatus = 'Running'` })) {
        try {
          rows.push(await c.workflow.getHandle(wf.workflowId).query<LoginStatus>(LOGIN_STATUS_QUERY));
        } catch (err) {
          rows.push({ workflowId: wf.workflowId, unreachable: (err as Error).message });
        }
      }
      print(!!opts.json, rows, () =>
        rows.length === 0
          ? 'no login'
          : rows.map((r) => ('unreachable' in r ? terminalSafe(`${r.workflowId}: unreachable (${r.unreachable})`) : loginLine(r))).join('\n'),
      );
    });
  auth
    .command('logout <server>')
    .description('Forget the login of a server (its tokens and registration); calls waiting for it fail with AuthorizationRequired')
    .option('--principal <name>', 'the principal of a per-call server (default: the shared login)')
    .option('--json', 'machine-readable output')
    .action(async (server: string, opts: { principal?: string; json?: boolean }) => {
      const c = (await client()).client;
      const id = loginWorkflowId(server, opts.principal ?? SHARED_PRINCIPAL);
      let status: LoginStatus;
      try {
        status = await resendUnprocessed(() => c.workflow.getHandle(id).executeUpdate<LoginStatus, []>(LOGOUT_UPDATE));
      } catch (err) {
        if (err instanceof WorkflowNotFoundError || /not found/i.test((err as Error).message)) throw unknownWorkflow(id, err);
        throw err;
      }
      print(!!opts.json, status, () => `signed out: ${loginLine(status)}`);
    });
}
