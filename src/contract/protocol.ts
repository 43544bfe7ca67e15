/**
 * The names of the messages on the wire (plain JSON payloads). Defined once here so that every plane,
 * and any Temporal client without this package (`temporal workflow signal --name answer`), agrees.
 */
export const ANSWER_SIGNAL = 'answer';
export const SUBMIT_ANSWER_UPDATE = 'submitAnswer';
export const PENDING_QUERY = 'pending';
export const PENDING_DETAILS_QUERY = 'pendingDetails';
/** Long poll: returns the pending requests as soon as one the caller has not seen is pending. */
export const WAIT_FOR_PENDING_UPDATE = 'waitForPending';
/** Internal: the activity hands an elicitation to its own workflow; the update id is the request id. */
export const ELICIT_UPDATE = 'durable-mcp.elicit';
/** The task queue of the worker and of every client helper, unless told otherwise. */
export const DEFAULT_TASK_QUEUE = 'durable-mcp';
/** Internal: the activity reports a tool call's MCP progress notifications to its workflow. */
export const PROGRESS_SIGNAL = 'durable-mcp.progress';
/** The progress of the workflow's running tool calls. */
export const PROGRESS_QUERY = 'progress';

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
