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
 * MCP `elicitation/create` params → Request (the seed contract, src/contract/index.ts).
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
 * Answer → MCP ElicitResult (the seed contract, src/contract/index.ts).
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

/**
 * The input requests of an MCP 2026-07-28 `input_required` result (key → `{ method, params }`, InputRequests), in the
 * server's order, each an elicitation or another kind the bridge refuses. Only `elicitation/create` (form or URL mode) is one this client declares; sampling,
 * roots or anything else is `unsupported`. The params are kept as the server sent them (the raw
 * requestedSchema, every keyword).
 */
export function readInputRequests(
  inputRequests: Record<string, unknown>,
): Array<{ key: string; kind: 'elicitation'; params: ElicitParams } | { key: string; kind: 'unsupported'; method: string }> {
  return Object.entries(inputRequests).map(([key, value]) => {
    const v = value as { method?: unknown; params?: unknown } | null;
    const method = v && typeof v === 'object' && typeof v.method === 'string' ? v.method : String(v && typeof v === 'object' ? v.method : typeof v);
    const params = v && typeof v === 'object' ? v.params : undefined;
    if (method !== 'elicitation/create' || !params || typeof params !== 'object' || Array.isArray(params)) return { key, kind: 'unsupported', method };
    const mode = (params as { mode?: unknown }).mode;
    if (mode !== undefined && mode !== 'form' && mode !== 'url') return { key, kind: 'unsupported', method: `${method} (mode ${JSON.stringify(mode)})` };
    return { key, kind: 'elicitation', params: params as ElicitParams };
  });
}
