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
/** Internal: a tool call run as a child workflow tells its parent (a pipeline) that a request of its is pending. */
export const CHILD_PENDING_SIGNAL = 'durable-mcp.childPending';
/** Internal: the child tells its parent that a request of its was resolved (answered there, expired, or withdrawn). */
export const CHILD_RESOLVED_SIGNAL = 'durable-mcp.childResolved';
/** Internal: the child tells its parent that its tool call finished. */
export const CHILD_DONE_SIGNAL = 'durable-mcp.childDone';
/** The task queue of the worker and of every client helper, unless told otherwise. */
export const DEFAULT_TASK_QUEUE = 'durable-mcp';
/** Internal: the activity reports a tool call's MCP progress notifications to its workflow. */
export const PROGRESS_SIGNAL = 'durable-mcp.progress';
/** The progress of the workflow's running tool calls. */
export const PROGRESS_QUERY = 'progress';
/** Internal: a call asks the login workflow of its server (and principal) for a new access token (update-with-start). */
export const LOGIN_WANTED_UPDATE = 'durable-mcp.loginWanted';
/** Internal: the login workflow tells a waiting call's workflow that the login settled (a new token, or a failure). */
export const LOGIN_SETTLED_SIGNAL = 'durable-mcp.loginSettled';
/** Internal: the inbox's `/oauth/callback` hands the authorization response to the login workflow. */
export const OAUTH_CALLBACK_UPDATE = 'durable-mcp.oauthCallback';
/** Internal: a worker reads the login's (sealed) credentials to call its server. */
export const LOGIN_CREDENTIALS_QUERY = 'durable-mcp.loginCredentials';
/** The login's state without any secret: server, principal, issuer, scopes, whether it is signed in (`durable-mcp auth list`). */
export const LOGIN_STATUS_QUERY = 'loginStatus';
/** Sign out: the login forgets its credentials (`durable-mcp auth logout`). */
export const LOGOUT_UPDATE = 'logout';
