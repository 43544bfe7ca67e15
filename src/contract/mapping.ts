import type { Answer, ElicitParams, ElicitResult, Request } from './schemas.js';

export interface ToRequestOptions {
  /** The request id (see `deriveRequestId`). */
  id: string;
  /** RFC 3339 instant after which the request expires into `cancel`. */
  expiresAt?: string;
}

/** True when the elicitation is URL mode; absent mode means form (MCP spec). */
export function isUrlMode(params: Pick<ElicitParams, 'mode'>): boolean {
  return params.mode === 'url';
}

/**
 * MCP `elicitation/create` params → Request (SPEC §2).
 * Form mode: kind "input", prompt = message verbatim ("" if absent), data = { schema: requestedSchema }, no url.
 * URL mode: kind "authorization", prompt = message, url = the link, no data.
 */
export function elicitationToRequest(params: ElicitParams, options: ToRequestOptions): Request {
  const prompt = typeof params.message === 'string' ? params.message : '';
  const request: Request = isUrlMode(params)
    ? { id: options.id, kind: 'authorization', prompt, url: params.url ?? '' }
    : { id: options.id, kind: 'input', prompt, data: { schema: params.requestedSchema ?? { type: 'object', properties: {} } } };
  if (options.expiresAt !== undefined) request.expiresAt = options.expiresAt;
  return request;
}

/**
 * Answer → MCP ElicitResult (SPEC §2).
 * ok:true → accept (content = data ?? {}; URL mode carries no content),
 * ok:false with reason "declined" → decline, any other ok:false → cancel.
 */
export function answerToElicitResult(answer: Answer, options: { mode?: 'form' | 'url' } = {}): ElicitResult {
  if (answer.ok) {
    if (options.mode === 'url') return { action: 'accept' };
    return { action: 'accept', content: (answer.data ?? {}) as Extract<ElicitResult, { action: 'accept' }>['content'] };
  }
  return answer.reason === 'declined' ? { action: 'decline' } : { action: 'cancel' };
}
