import type { ElicitParams } from './schemas.js';

/** JSON with object keys sorted, so equal values always serialize equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** 64-bit FNV-1a as 16 hex digits: pure, deterministic, and fine for fingerprints (not for secrets). */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    hash ^= BigInt(code & 0xff);
    hash = (hash * prime) & mask;
    hash ^= BigInt(code >> 8);
    hash = (hash * prime) & mask;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * The fingerprint of an elicitation: (mode, message, requestedSchema). Never the URL-mode `url` or
 * `elicitationId`: those change on every attempt of the same tool call.
 */
export function elicitationFingerprint(params: ElicitParams): string {
  const mode = params.mode === 'url' ? 'url' : 'form';
  return fnv1a64(canonicalJson({ mode, message: params.message ?? '', schema: mode === 'form' ? (params.requestedSchema ?? null) : null }));
}

/**
 * The deterministic request id of an elicitation: the tool call's stable id (assigned by the workflow,
 * not the attempt), the elicitation's ordinal within the call (1-based), and its fingerprint.
 * A retried or re-run attempt of the same call derives the same id for the same question.
 *
 * Called by the legacy era (an `elicitation/create` request on the live session of a `tools/call`; the
 * activity's elicitation handler): there the elicitations of a call arrive one after another on one session,
 * so their order within the call identifies them. The modern era's rounds use `deriveRoundRequestId`.
 */
export function deriveRequestId(callId: string, ordinal: number, params: ElicitParams): string {
  if (!callId) throw new TypeError('callId must be a non-empty string');
  if (!Number.isInteger(ordinal) || ordinal < 1) throw new TypeError(`ordinal must be a positive integer, got ${ordinal}`);
  return `${callId}.${ordinal}.${elicitationFingerprint(params).slice(0, 10)}`;
}

/**
 * The deterministic request id of one input request of a round: the tool call's stable id, the round
 * (1-based), the server's key for the request and the fingerprint of its params. A retried round derives
 * the same ids; a key that is not a short plain word is hashed (keys are server-chosen).
 *
 * Called for the rounds of a tool call that is sent again with the answers: the modern era's
 * `input_required` results (MCP 2026-07-28, multi-round tool calls; the workflow's elicitation host and
 * McpSource) and the legacy `-32042` URL-elicitation-required error, whose links are keyed `url1`, `url2`, ….
 * A round holds several input requests at once, asked together, so the round and the server's key identify
 * one (an ordinal would not: the legacy `deriveRequestId` counts elicitations as they arrive on a live session).
 */
export function deriveRoundRequestId(callId: string, round: number, key: string, params: ElicitParams): string {
  if (!callId) throw new TypeError('callId must be a non-empty string');
  if (!Number.isInteger(round) || round < 1) throw new TypeError(`round must be a positive integer, got ${round}`);
  const safeKey = /^[A-Za-z0-9_-]{1,32}$/.test(key) ? key : `k${fnv1a64(key).slice(0, 8)}`;
  return `${callId}.r${round}.${safeKey}.${elicitationFingerprint(params).slice(0, 10)}`;
}
