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
