import { validateElicitationContent } from './content.js';
import type { FailureType } from './failures.js';
import { describeKind, jsonByteLength, preview } from './json.js';
import type { Answer, Request } from './schemas.js';

/** Largest accepted answer, as UTF-8 JSON: far below Temporal's 2 MB payload limit, with room for history. */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** A refused answer says why (`reason`) and which failure type it is (`type`, from failures.ts). */
export type AnswerCheck = { ok: true; answer: Answer } | { ok: false; reason: string; type: FailureType };

const ANSWER_KEYS = ['id', 'ok', 'data', 'reason'];

/** An offending value in a refusal: its JSON text, at most 60 characters. */
const show = (value: unknown): string => preview(value, { raw: true });

/**
 * The shape of `AnswerSchema` (schemas.ts, the source of the type), checked without zod: this runs in
 * the workflow sandbox, where zod would be evaluated again for every cached workflow. A contract test
 * holds the two to the same verdicts.
 */
function checkShape(raw: Record<string, unknown>): AnswerCheck {
  const bad = (field: string, problem: string): AnswerCheck => ({ ok: false, reason: `answer field "${field}": ${problem}`, type: 'InvalidAnswer' });
  const unknown = Object.keys(raw).filter((k) => !ANSWER_KEYS.includes(k));
  if (unknown.length > 0) return bad('(answer)', `unknown key(s) ${unknown.map((k) => `"${k}"`).join(', ')}; an answer has only id, ok, data, reason`);
  const { id, ok, data, reason } = raw;
  if (typeof id !== 'string' || id.length === 0) return bad('id', `id must be a non-empty string, got ${show(id)}`);
  if (typeof ok !== 'boolean') return bad('ok', `must be a boolean, got ${show(ok)}`);
  if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) return bad('data', `must be an object, got ${show(data)}`);
  if (reason !== undefined && typeof reason !== 'string') return bad('reason', `must be a string, got ${show(reason)}`);
  if (ok && reason !== undefined) return bad('reason', 'reason is only allowed when ok is false');
  const answer: Answer = { id, ok };
  if (data !== undefined) answer.data = data as Record<string, unknown>;
  if (reason !== undefined) answer.reason = reason;
  return { ok: true, answer };
}

/**
 * Check an answer against the pending request it names. Returns the answer to record (for an accepted
 * form answer, with the schema's defaults applied) or the reason it is rejected.
 * `request` is the pending request with `answer.id`, or undefined when none is pending.
 */
export function checkAnswer(raw: unknown, request: Request | undefined, limits: { maxBytes?: number } = {}): AnswerCheck {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const got = describeKind(raw, { article: true });
    return { ok: false, reason: `answer must be an object like {"id":…,"ok":true,"data":{…}}, got ${got}`, type: 'InvalidAnswer' };
  }
  const maxBytes = limits.maxBytes ?? MAX_ANSWER_BYTES;
  const size = jsonByteLength(raw);
  if (size > maxBytes) return { ok: false, reason: `answer is ${size} bytes, over the limit of ${maxBytes} bytes`, type: 'AnswerTooLarge' };
  const shape = checkShape(raw as Record<string, unknown>);
  if (!shape.ok) return shape;
  const answer = shape.answer;
  if (!request) return { ok: false, reason: `no pending request with id "${answer.id}"`, type: 'UnknownRequest' };
  if (!answer.ok) {
    const out: Answer = { id: answer.id, ok: false };
    if (answer.reason !== undefined) out.reason = answer.reason;
    return { ok: true, answer: out };
  }
  if (request.kind === 'input') {
    const schema = (request.data as { schema?: unknown } | undefined)?.schema;
    const check = validateElicitationContent(schema, answer.data ?? {});
    if (!check.ok) return { ok: false, reason: `answer data does not match the requested schema: ${check.message}`, type: 'InvalidAnswer' };
    return { ok: true, answer: { id: answer.id, ok: true, data: check.data } };
  }
  // URL mode (authorization): accept carries no content.
  return { ok: true, answer: { id: answer.id, ok: true } };
}
