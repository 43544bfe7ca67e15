/**
 * The names of durable-mcp's metrics (Prometheus, through the Temporal runtime's exporter; see README,
 * "Operating it"). Counters are exported as `<name>_total` when the exporter adds that suffix.
 */
export const MetricNames = {
  /** Requests waiting for a person (up-down counter, by server and kind). */
  requestsPending: 'durable_mcp_requests_pending',
  /** Requests resolved (counter, by outcome). */
  requestsResolved: 'durable_mcp_requests_resolved',
  /** From a request being recorded to its answer (histogram, ms). */
  timeToAnswer: 'durable_mcp_time_to_answer',
  /** Tool calls released to wait for a person (counter, by reason). */
  callsReleased: 'durable_mcp_calls_released',
  /** MCP sessions open in a worker (gauge). */
  sessionsOpen: 'durable_mcp_sessions_open',
  /** One callMcpTool attempt (histogram, ms). */
  toolCallDuration: 'durable_mcp_tool_call_duration',
  /** Modern-era (MCP 2026-07-28) rounds that ended `input_required`, by server and what the round asked for. */
  mrtrRounds: 'durable_mcp_mrtr_rounds',
} as const;
