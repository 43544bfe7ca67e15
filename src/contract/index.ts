export {
  AnswerSchema,
  ElicitParamsSchema,
  ElicitResultSchema,
  Reasons,
  RequestSchema,
  ToolResultSchema,
  type Answer,
  type ElicitParams,
  type ElicitResult,
  type Request,
  type ToolResult,
} from './schemas.js';
export { answerToElicitResult, elicitationToRequest, isUrlMode, type ToRequestOptions } from './mapping.js';
export { canonicalJson, deriveRequestId, elicitationFingerprint, fnv1a64 } from './id.js';
export { validateElicitationContent, type ContentValidation, type ValidationIssue } from './validate.js';
export { checkAnswer, jsonByteLength, MAX_ANSWER_BYTES, type AnswerCheck } from './answer.js';
export { ANSWER_SIGNAL, ELICIT_UPDATE, PENDING_DETAILS_QUERY, PENDING_QUERY, SUBMIT_ANSWER_UPDATE } from './protocol.js';
export { METRIC_CALLS_RELEASED, METRIC_REQUESTS_PENDING, METRIC_REQUESTS_RESOLVED, METRIC_SESSIONS_OPEN, METRIC_TIME_TO_ANSWER, METRIC_TOOL_CALL_DURATION } from './protocol.js';
