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
export { answerToElicitResult, elicitationToRequest, isUrlMode, readInputRequests, type RoundInputRequest, type ToRequestOptions } from './mapping.js';
export { canonicalJson, deriveRequestId, deriveRoundRequestId, elicitationFingerprint, fnv1a64 } from './id.js';
export { checkRequestedSchema, validateElicitationContent, type ContentValidation, type ValidationIssue } from './validate.js';
export {
  admitElicitation,
  admitInputRequest,
  checkElicitationUrl,
  INVALID_PARAMS,
  MAX_ELICITATION_BYTES,
  MAX_ELICITATION_DEPTH,
  MAX_URL_LENGTH,
  urlHost,
  type Admission,
  type AdmissionContext,
  type UrlCheck,
} from './admit.js';
export { checkAnswer, jsonByteLength, MAX_ANSWER_BYTES, type AnswerCheck } from './answer.js';
export { ANSWER_SIGNAL, DEFAULT_TASK_QUEUE, ELICIT_UPDATE, PENDING_DETAILS_QUERY, PENDING_QUERY, PROGRESS_QUERY, PROGRESS_SIGNAL, SUBMIT_ANSWER_UPDATE } from './message-names.js';
export { FAILURES, FailureTypes, isFailureType, type FailureType } from './failures.js';
