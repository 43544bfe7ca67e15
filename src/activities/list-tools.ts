/** The `listMcpTools` activity: the tools of one server, as its pooled session listed them at connect. */
import { Context } from '@temporalio/activity';
import type { McpToolInfo } from '../mcp/index.js';
import type { ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import type { ListMcpToolsInput } from './types.js';

export function listMcpToolsActivity(deps: ActivityDeps) {
  return async function listMcpTools(input: ListMcpToolsInput): Promise<McpToolInfo[]> {
    let lease;
    try {
      lease = await deps.pool.lease(input.server, Context.current().cancellationSignal);
    } catch (err) {
      failure(err, input.server);
    }
    const tools = lease.session.tools;
    await lease.release();
    return tools;
  };
}
