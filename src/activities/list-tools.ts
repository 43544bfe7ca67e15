/**
 * The `listMcpTools` activity (the workflow `mcpListTools` runs it): the tools of one server, each as the server
 * listed it. It leases a session from the worker's pool like a tool call (the same config, transports and
 * connection options), so a session opened for it has just listed them; an older one lists them again, since a
 * server's tools may change.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FailureTypes, jsonByteLength } from '../contract/index.js';
import type { McpToolInfo } from '../mcp/index.js';
import { heartbeatEvery, type ActivityDeps } from './deps.js';
import { failure } from './failures.js';
import { MAX_RESULT_BYTES, type ListMcpToolsInput } from './types.js';

export function listMcpToolsActivity(deps: ActivityDeps) {
  return async function listMcpTools(input: ListMcpToolsInput): Promise<McpToolInfo[]> {
    const ctx = Context.current();
    const asked = performance.now();
    // The lease may wait for a session of a busy server: heartbeats tell Temporal this worker is alive meanwhile.
    const beat = setInterval(() => ctx.heartbeat(), heartbeatEvery(ctx));
    try {
      let lease;
      try {
        lease = await deps.pool.lease(input.server, ctx.cancellationSignal);
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
        failure(err, input.server);
      }
      let tools: McpToolInfo[];
      try {
        tools = lease.session.toolsListedAt >= asked ? lease.session.tools : await lease.session.listTools();
      } catch (err) {
        await lease.release({ discard: true });
        failure(err, input.server);
      }
      await lease.release();
      const bytes = jsonByteLength(tools);
      if (bytes > MAX_RESULT_BYTES) {
        throw ApplicationFailure.nonRetryable(
          `server "${input.server}" lists ${tools.length} tools in ${bytes} bytes of JSON, over the ${MAX_RESULT_BYTES} bytes a listing may return` +
            ' (a Temporal payload); narrow it with the server\'s "tools" allowlist in the MCP config',
          FailureTypes.ResultTooLarge,
        );
      }
      return tools;
    } finally {
      clearInterval(beat);
    }
  };
}
