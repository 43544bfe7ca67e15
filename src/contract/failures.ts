/**
 * The one documented list of failure types. Every failure a durable-mcp workflow or activity raises is an
 * `ApplicationFailure` whose `type` is one of these; the client throws it on as its plane's class (src/client/errors.ts:
 * `ToolCallFailure`, `AnswerRejectedFailure`) with the same `type`, never reading message text. Plain constants:
 * workflow code imports this module too.
 *
 * To add a type: add it to `FAILURES` with its plane and whether Temporal retries it (`call`, `retriedCall` or
 * `answer`, below) and a one-line description (docs/failures.md's table says the same); clients need nothing more.
 */
export const FAILURES = {
  // ---- a tool call fails (the workflow `mcpToolCall` fails with it; `result` prints it) ----
  UnknownServer: call('the MCP config has no server of that name (or it is disabled)'),
  UnknownTool: call('the MCP server has no tool of that name'),
  ToolNotAllowed: call("the tool is not in the server's `tools` allowlist"),
  McpServerUnavailable: retriedCall(
    'the MCP server could not be started or reached (a command that does not exist, a refused connection, an initialize timeout, a tools/list that fails)',
  ),
  McpConfigInvalid: call("the server's config is wrong (found when the worker starts the server)"),
  InvalidArguments: call("the MCP server refused the tool's arguments (JSON-RPC invalid params)"),
  ToolCallFailed: retriedCall('the tools/call request failed (transport error, timeout, server error)'),
  ResultTooLarge: call("the tool's result (or a server's tool list) is over the limit of a Temporal payload"),
  ProtocolViolation: call(
    'the server answered with something MCP does not allow (a malformed result, a result failing the schema, an invalid tool definition)',
  ),
  WorkerShuttingDown: retriedCall('the worker is shutting down; another attempt runs on a worker that is up'),
  NotifyFailed: retriedCall('the notification webhook failed (retried with backoff; never fails or delays the tool call)'),
  NoWorkflow: call('the activity callMcpTool was run outside a workflow'),
  ChildUnreachable: answer("the request belongs to a pipeline's child workflow that could not take the answer"),
  InvalidInput: call('the workflow input is wrong (names the field and the value)'),
  ApprovalMismatch: call('callMcpTool was given arguments other than the ones a person approved (their digest differs): the tool does not run'),
  // ---- a tool call's input requests (both MCP eras) ----
  RoundLimitExceeded: call('a modern-era tool still required input after `maxRounds` rounds (default 10)'),
  UnsupportedInputRequest: call('the server asked for input of a kind this client never declared (sampling, roots)'),
  RequestStateTooLarge: call("the server's requestState is over its size bound (64 KiB)"),
  InputRequestsTooLarge: call("a round's input requests are over the limit of a Temporal payload"),
  UrlElicitationRefused: call('a -32042 URL elicitation was declined or cancelled, so the call cannot be retried'),
  ElicitationRefused: call('a modern-era input request broke the arrival rules (size, schema, URL); a legacy one gets -32602 instead'),
  // ---- MCP Tasks (docs/tasks.md) ----
  MissingClientCapability: call('the server needs a client capability the call did not declare (-32021, e.g. the tasks extension with `tasks: "off"`)'),
  TaskFailed: call("the server's task ended failed (the failure carries the server's error)"),
  TaskCancelled: call('the server cancelled the task'),
  TaskExpired: call("the task's ttlMs passed before it ended (the server may have discarded it)"),
  // ---- a server behind OAuth (MCP authorization; docs/oauth.md) ----
  AuthorizationRequired: call('the server needs a sign-in that did not happen: the login request expired, was declined or cancelled, or was logged out'),
  AuthorizationFailed: call(
    "the server's OAuth authorization cannot succeed as configured (discovery, registration, resource or issuer mismatch, scope step-up limit)",
  ),
  UnknownState: answer("an OAuth callback's state is not its login's pending one (unknown, used, replayed): refused, nothing changes"),
  // ---- an answer is refused (the `submitAnswer` update rejects with it; a bad `answer` signal is logged) ----
  UnknownRequest: answer('no request with that id is pending in this workflow'),
  AlreadyResolved: answer('the request was already answered, declined or cancelled (first resolution wins)'),
  Expired: answer('the request expired (it was resolved as cancel)'),
  InvalidAnswer: answer("the answer's shape or data does not match the request (names the field)"),
  AnswerTooLarge: answer('the answer is over the size limit'),
} as const;

export type FailureType = keyof typeof FAILURES;

/** The failure types by name, for `ApplicationFailure.nonRetryable(message, FailureTypes.UnknownTool)`. */
export const FailureTypes = Object.fromEntries(Object.keys(FAILURES).map((k) => [k, k])) as { readonly [K in FailureType]: K };

/** Whether `type` is one of durable-mcp's failure types (FailureTypes). */
export function isFailureType(type: unknown): type is FailureType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(FAILURES, type);
}

/** A failure of a tool call that another attempt would meet again: the workflow fails with it at once. */
function call<D extends string>(description: D) {
  return { plane: 'call', retryable: false, description } as const;
}

/** A failure of a tool call that Temporal retries: another attempt may succeed. */
function retriedCall<D extends string>(description: D) {
  return { plane: 'call', retryable: true, description } as const;
}

/** A refused answer (or OAuth callback), never retried: the same one is refused again. */
function answer<D extends string>(description: D) {
  return { plane: 'answer', retryable: false, description } as const;
}
