/** The worker's workflow cache: its size (DURABLE_MCP_MAX_CACHED_WORKFLOWS, else a small default) and the warning when it is off. */

/**
 * Workflows kept in the worker's cache. Most durable-mcp workflows sit waiting for a human, and each cached
 * one costs a few hundred KB (about 300 KB for a tool call that waits), so the cache is small: an evicted
 * workflow replays its (short) history on its next task. Raise it (`maxCachedWorkflows` of the worker's options or
 * DURABLE_MCP_MAX_CACHED_WORKFLOWS) for many busy workflows.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 50;

export const MAX_CACHED_WORKFLOWS_ENV = 'DURABLE_MCP_MAX_CACHED_WORKFLOWS';

/** The cache size of DURABLE_MCP_MAX_CACHED_WORKFLOWS (a whole number, 0 or more), else DEFAULT_MAX_CACHED_WORKFLOWS. */
export function maxCachedWorkflowsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_CACHED_WORKFLOWS_ENV];
  const n = Number(raw);
  return raw && Number.isInteger(n) && n >= 0 ? n : DEFAULT_MAX_CACHED_WORKFLOWS;
}

/**
 * A warning when the workflow cache is off (`maxCachedWorkflows` 0): Temporal Core (TypeScript SDK 1.24) then
 * drops query tasks that arrive together for one workflow, so `pending` and the inbox can time out
 * (scripts/upstream/UPSTREAM.md).
 */
export function zeroCacheWarning(maxCachedWorkflows: number | undefined): string | undefined {
  if (maxCachedWorkflows !== 0) return undefined;
  return (
    'maxCachedWorkflows is 0 (the workflow cache is off): Temporal Core then drops queries sent to one workflow at the same time,' +
    ' so `pending` and the inbox can time out.' +
    ' Use it for replay testing only; the default is ' +
    DEFAULT_MAX_CACHED_WORKFLOWS
  );
}
