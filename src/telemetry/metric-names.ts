/**
 * The names of durable-mcp's metrics (Prometheus, through the Temporal runtime's exporter; see docs/operating.md,
 * "Metrics"). Counters are exported as `<name>_total` when the exporter adds that suffix.
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
  /** Approvals of tool calls resolved (counter, by server, tool and outcome: approved, declined, expired, cancelled). */
  approvals: 'durable_mcp_approvals',
} as const;

/** What each metric says (one text per name: the worker's zero series and the instruments that record use the same). */
export const MetricDescriptions: Record<(typeof MetricNames)[keyof typeof MetricNames], string> = {
  [MetricNames.requestsPending]: 'Requests waiting for a person, by server and kind',
  [MetricNames.requestsResolved]: 'Requests resolved, by outcome (accept, decline, cancel, expired)',
  [MetricNames.timeToAnswer]: 'Time from a request being recorded to its answer',
  [MetricNames.callsReleased]: 'Tool calls released to wait for a person, by reason',
  [MetricNames.sessionsOpen]: 'MCP sessions open in this worker, by server',
  [MetricNames.toolCallDuration]: 'Duration of one callMcpTool attempt, by server, tool and outcome',
  [MetricNames.mrtrRounds]: 'Modern-era (MRTR) rounds that ended input_required, by server and kind (input, request-state, url-error)',
  [MetricNames.approvals]: 'Approvals of tool calls resolved, by server, tool and outcome (approved, declined, expired, cancelled)',
};

/** The values of the labels that do not come from the config (the worker starts each family at zero for each). */
export const MetricLabelValues = {
  kind: ['input', 'authorization'],
  outcome: ['accept', 'decline', 'cancel', 'expired'],
  reason: ['hold-expired', 'server-gave-up', 'session-needed', 'worker-shutdown', 'workflow-unreachable'],
  roundKind: ['input', 'request-state', 'url-error'],
  /** durable-mcp's workflows that ask (a workflow of your own adds its series at its first request). */
  workflowType: ['mcpToolCall', 'mcpPipeline'],
} as const;
