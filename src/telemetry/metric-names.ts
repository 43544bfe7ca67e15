/**
 * The names of durable-mcp's metrics (Prometheus, through the Temporal runtime's exporter; see README,
 * "Operating it"). Counters are exported as `<name>_total` when the exporter adds that suffix.
 */
export const METRIC_REQUESTS_PENDING = 'durable_mcp_requests_pending';
export const METRIC_REQUESTS_RESOLVED = 'durable_mcp_requests_resolved';
export const METRIC_TIME_TO_ANSWER = 'durable_mcp_time_to_answer';
export const METRIC_CALLS_RELEASED = 'durable_mcp_calls_released';
export const METRIC_SESSIONS_OPEN = 'durable_mcp_sessions_open';
export const METRIC_TOOL_CALL_DURATION = 'durable_mcp_tool_call_duration';
/** Modern-era (MCP 2026-07-28) rounds that ended `input_required`, by server and what the round asked for. */
export const METRIC_MRTR_ROUNDS = 'durable_mcp_mrtr_rounds';
