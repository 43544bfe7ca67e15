/**
 * The contract plane: pure data and pure functions (zod only), shared by every other plane. This index is the planes'
 * own way in, not a package entry: users get the contract from the root entry (src/index.ts), without the internals
 * (request ids, admission, the answer check).
 *
 * ## The seed contract
 *
 * durable-mcp implements the elicitation bridge of the seed page `McpSource.elicitationToRequest` (the
 * toolnexus Java port's `McpSource`): when an MCP server calls `elicitation/create` in the middle of
 * `tools/call`, the elicitation becomes a suspension Request that a resolver (here: a human, through a
 * Temporal workflow) answers, and the Answer is mapped back to the MCP `ElicitResult`. Pure data, byte-exact:
 *
 * ```
 * Request { id, kind, prompt, url?, data?, expiresAt? }     // keys exactly these
 * Answer  { id, ok, data?, reason? }                          // reason only when ok == false
 * ```
 *
 * | MCP `elicitation/create`              | Request                                                                                                |
 * |---------------------------------------|--------------------------------------------------------------------------------------------------------|
 * | form mode (`mode` absent or `"form"`) | `kind:"input"`, `prompt` = `message` verbatim (`""` if absent), `data = { schema: requestedSchema }`, no `url` |
 * | URL mode (`mode:"url"`)               | `kind:"authorization"`, `prompt` = `message`, `url` = the link, no `data`                              |
 *
 * | Answer                                                               | MCP `ElicitResult`                                           |
 * |----------------------------------------------------------------------|--------------------------------------------------------------|
 * | `ok:true`                                                            | `{ action:"accept", content: answer.data ?? {} }` (form mode) |
 * | `ok:false, reason:"declined"`                                        | `{ action:"decline" }`                                       |
 * | `ok:false`, any other reason or none (cancelled, expired, timed out) | `{ action:"cancel" }`                                        |
 *
 * durable-mcp adds, within the contract: a URL-mode accept carries no `content`; a form-mode request without a
 * `requestedSchema` gets `{ type: "object", properties: {} }`; `id` is derived deterministically (id.ts) and
 * `expiresAt` is an RFC 3339 instant after which the request expires into `cancel`.
 *
 * ## The modules
 *
 * schemas (zod shapes of the contract), mapping (the two tables above), id (request ids), admit and
 * admit-schema (what a server may send), content (an answer's content against its `requestedSchema`), fields
 * and formats (the checks content is built of), answer (an Answer against its pending Request), failures,
 * message-names (Temporal message names), json (object test, UTF-8 sizes, value previews), causes (an error's
 * cause chain). Workflow code imports values only from the zod-free modules (all but this index and schemas).
 */
export * from './schemas.js';
export { answerToElicitResult, elicitationToRequest, readInputRequests, type ToRequestOptions } from './mapping.js';
export { deriveRequestId, deriveRoundRequestId } from './id.js';
export {
  admitElicitation,
  checkElicitationUrl,
  INVALID_PARAMS,
  MAX_ELICITATION_BYTES,
  urlHost,
  type Admission,
  type AdmissionContext,
  type UrlCheck,
} from './admit.js';
export { validateElicitationContent, type ContentValidation, type ValidationIssue } from './content.js';
export { checkAnswer, MAX_ANSWER_BYTES, type AnswerCheck } from './answer.js';
export { FAILURES, FailureTypes, isFailureType, type FailureType } from './failures.js';
export {
  ANSWER_SIGNAL,
  DEFAULT_TASK_QUEUE,
  ELICIT_UPDATE,
  PENDING_DETAILS_QUERY,
  PENDING_QUERY,
  PROGRESS_QUERY,
  PROGRESS_SIGNAL,
  SUBMIT_ANSWER_UPDATE,
} from './message-names.js';
export { describeKind, isPlainObject, jsonByteLength, preview, utf8ByteLength, type PreviewOptions } from './json.js';
export { causeChain, causeMessages } from './causes.js';
