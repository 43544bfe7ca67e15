/**
 * The name a tool is exposed under to a model or an MCP client (McpSource, `durableMcpTools`): its server's name and
 * its own, each with every character outside `[a-zA-Z0-9_-]` replaced by `_`, joined by `_`. Pure.
 */

/** `sanitize(x) = x.replace(/[^a-zA-Z0-9_-]/g, "_")`. */
export function sanitize(x: string): string {
  return x.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The exposed tool name: `sanitize(server) + "_" + sanitize(tool)`. */
export function exposedToolName(server: string, tool: string): string {
  return `${sanitize(server)}_${sanitize(tool)}`;
}
