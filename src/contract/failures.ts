/**
 * The one documented list of failure types. Every failure a durable-mcp workflow or activity raises is an
 * `ApplicationFailure` whose `type` is one of these; the client throws it on as its plane's class (src/client/errors.ts:
 * `ToolCallFailure`, `AnswerRejectedFailure`) with the same `type`, never reading message text. Plain constants:
 * workflow code imports this module too.
 *
 * To add a type: add it to `FAILURES` with its plane and a one-line description (docs/failures.md's table says
 * the same); clients need nothing more.
 */
export const FAILURES = {
  // ---- a tool call fails (the workflow `mcpToolCall` fails with it; `result` prints it) ----
  UnknownServer: { plane: 'call', retryable: false, description: 'the MCP config has no server of that name (or it is disabled)' },
  UnknownTool: { plane: 'call', retryable: false, description: 'the MCP server has no tool of that name' },
  ToolNotAllowed: { plane: 'call', retryable: false, description: "the tool is not in the server's `tools` allowlist" },
  McpServerUnavailable: {
    plane: 'call',
    retryable: true,
    description:
      'the MCP server could not be started or reached (a command that does not exist, a refused connection, an initialize timeout, a tools/list that fails)',
  },
  McpConfigInvalid: { plane: 'call', retryable: false, description: "the server's config is wrong (found when the worker starts the server)" },
  InvalidArguments: { plane: 'call', retryable: false, description: "the MCP server refused the tool's arguments (JSON-RPC invalid params)" },
  ToolCallFailed: { plane: 'call', retryable: true, description: 'the tools/call request failed (transport error, timeout, server error)' },
  ResultTooLarge: { plane: 'call', retryable: false, description: "the tool's result (or a server's tool list) is over the limit of a Temporal payload" },
  ProtocolViolation: {
    plane: 'call',
    retryable: false,
    description: 'the server answered with something MCP does not allow (a malformed result, a result failing the schema, an invalid tool definition)',
  },
  WorkerShuttingDown: { plane: 'call', retryable: true, description: 'the worker is shutting down; another attempt runs on a worker that is up' },
  NotifyFailed: { plane: 'call', retryable: true, description: 'the notification webhook failed (retried with backoff; never fails or delays the tool call)' },
  NoWorkflow: { plane: 'call', retryable: false, description: 'the activity callMcpTool was run outside a workflow' },
  ChildUnreachable: { plane: 'answer', retryable: false, description: "the request belongs to a pipeline's child workflow that could not take the answer" },
  InvalidInput: { plane: 'call', retryable: false, description: 'the workflow input is wrong (names the field and the value)' },
  ApprovalMismatch: {
    plane: 'call',
    retryable: false,
    description: 'callMcpTool was given arguments other than the ones a person approved (their digest differs): the tool does not run',
  },
  // ---- a tool call's input requests (both MCP eras) ----
  RoundLimitExceeded: { plane: 'call', retryable: false, description: 'a modern-era tool still required input after `maxRounds` rounds (default 10)' },
  UnsupportedInputRequest: {
    plane: 'call',
    retryable: false,
    description: 'the server asked for input of a kind this client never declared (sampling, roots)',
  },
  RequestStateTooLarge: { plane: 'call', retryable: false, description: "the server's requestState is over its size bound (64 KiB)" },
  InputRequestsTooLarge: { plane: 'call', retryable: false, description: "a round's input requests are over the limit of a Temporal payload" },
  UrlElicitationRefused: { plane: 'call', retryable: false, description: 'a -32042 URL elicitation was declined or cancelled, so the call cannot be retried' },
  ElicitationRefused: {
    plane: 'call',
    retryable: false,
    description: 'a modern-era input request broke the arrival rules (size, schema, URL); a legacy one gets -32602 instead',
  },
  // ---- MCP Tasks (docs/tasks.md) ----
  MissingClientCapability: {
    plane: 'call',
    retryable: false,
    description: 'the server needs a client capability the call did not declare (-32021, e.g. the tasks extension with `tasks: "off"`)',
  },
  TaskFailed: { plane: 'call', retryable: false, description: "the server's task ended failed (the failure carries the server's error)" },
  TaskCancelled: { plane: 'call', retryable: false, description: 'the server cancelled the task' },
  TaskExpired: { plane: 'call', retryable: false, description: "the task's ttlMs passed before it ended (the server may have discarded it)" },
  // ---- a server behind OAuth (MCP authorization; docs/oauth.md) ----
  AuthorizationRequired: {
    plane: 'call',
    retryable: false,
    description: 'the server needs a sign-in that did not happen: the login request expired, was declined or cancelled, or was logged out',
  },
  AuthorizationFailed: {
    plane: 'call',
    retryable: false,
    description: "the server's OAuth authorization cannot succeed as configured (discovery, registration, resource or issuer mismatch, scope step-up limit)",
  },
  UnknownState: {
    plane: 'answer',
    retryable: false,
    description: "an OAuth callback's state is not its login's pending one (unknown, used, replayed): refused, nothing changes",
  },
  // ---- an answer is refused (the `submitAnswer` update rejects with it; a bad `answer` signal is logged) ----
  UnknownRequest: { plane: 'answer', retryable: false, description: 'no request with that id is pending in this workflow' },
  AlreadyResolved: { plane: 'answer', retryable: false, description: 'the request was already answered, declined or cancelled (first resolution wins)' },
  Expired: { plane: 'answer', retryable: false, description: 'the request expired (it was resolved as cancel)' },
  InvalidAnswer: { plane: 'answer', retryable: false, description: "the answer's shape or data does not match the request (names the field)" },
  AnswerTooLarge: { plane: 'answer', retryable: false, description: 'the answer is over the size limit' },
} as const;

export type FailureType = keyof typeof FAILURES;

/** The failure types by name, for `ApplicationFailure.nonRetryable(message, FailureTypes.UnknownTool)`. */
export const FailureTypes = Object.fromEntries(Object.keys(FAILURES).map((k) => [k, k])) as { readonly [K in FailureType]: K };

/** Whether `type` is one of durable-mcp's failure types (FailureTypes). */
export function isFailureType(type: unknown): type is FailureType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(FAILURES, type);
}
