/**
 * Arrival rules for an elicitation, before anyone sees it (issue #16). An MCP server is untrusted input,
 * and what it sends goes to a person: a request is admitted only when it fits, its schema is one that
 * durable-mcp validates exactly as the server's own check does, some answer can satisfy it, and a URL
 * is one a person may safely open. Everything else is refused at arrival with JSON-RPC `-32602` and a
 * one-line reason, so nothing becomes pending and no workflow task fails.
 *
 * Pure and era-independent (no Node, no MCP SDK, no zod): the legacy bridge (`elicitation/create`, read
 * raw from the transport) and the modern era's `input_required` rounds apply the same function,
 * `admitElicitation`, to the raw params of each elicitation. The schema rules are in admit-schema.ts.
 */
import { checkRequestedSchema } from './admit-schema.js';
import { isPlainObject, jsonByteLength, preview } from './json.js';
import type { ElicitParams } from './schemas.js';

/**
 * Largest elicitation a server may send: its `message`, `requestedSchema` and `url` together, as UTF-8
 * JSON. A Request travels in the internal elicit update, sits in workflow state, in every `pending` /
 * `pendingDetails` query result and in a continue-as-new input together with the recorded answers
 * (each at most 256 KiB): at 64 KiB, about twenty requests pending at once still fit Temporal's default
 * 2 MB payload limit with their answers' room to spare.
 */
export const MAX_ELICITATION_BYTES = 64 * 1024;
/** Longest URL of a URL-mode elicitation, in characters (part of the bound above too). */
export const MAX_URL_LENGTH = 8 * 1024;

/** Deepest nesting of objects and arrays in an elicitation's params (the restricted schema needs 5). */
export const MAX_ELICITATION_DEPTH = 32;

/** JSON-RPC "Invalid params": what the server receives for a refused elicitation. */
export const INVALID_PARAMS = -32602;

/** What a person needs beside the Request to act on it safely. */
export interface AdmissionContext {
  /** URL mode: the host the link goes to (lower-case, with a port when it has one). */
  host?: string;
}

export type Admission = { ok: true; params: ElicitParams; context: AdmissionContext } | { ok: false; code: typeof INVALID_PARAMS; message: string };

function refuse(message: string): Admission {
  return { ok: false, code: INVALID_PARAMS, message: `elicitation refused: ${message}` };
}

/** An offending value in a refusal: its JSON text, at most 80 characters. */
const show = (v: unknown): string => preview(v, { raw: true, max: 80 });

/**
 * Admit or refuse the raw params of one elicitation, exactly as the server sent them. On success `params`
 * carries `requestedSchema` unchanged (every keyword kept) and `context` what a person should see beside
 * the prompt.
 *
 * Both eras call it, on the params of each elicitation: the legacy era on an `elicitation/create` request
 * read raw from the transport (mcp/connection.ts; a refusal is the JSON-RPC error `-32602` to the server),
 * the modern era on each elicitation input request of an `input_required` result and on each link of a
 * `-32042` error, once readInputRequests (mapping.ts) has set apart the methods this client does not
 * declare (the activity and McpSource; a round has no channel for an error per request, so a refusal
 * fails the call, naming the key).
 */
export function admitElicitation(raw: unknown, limits: { maxBytes?: number } = {}): Admission {
  if (!isPlainObject(raw)) return refuse(`params must be an object, got ${show(raw)}`);
  // First, without recursion: a deeply nested value would overflow the stack of anything recursive
  // (JSON.stringify included), and the bound below is measured with it.
  if (deeperThan(raw, MAX_ELICITATION_DEPTH)) return refuse(`params are nested deeper than ${MAX_ELICITATION_DEPTH} levels`);
  const maxBytes = limits.maxBytes ?? MAX_ELICITATION_BYTES;
  const { mode, message, requestedSchema, url, elicitationId } = raw;
  const size = jsonByteLength({ message, requestedSchema, url });
  if (size > maxBytes) {
    return refuse(`the request is ${size} bytes (message, requestedSchema and url as UTF-8 JSON), over the bound of ${maxBytes} bytes`);
  }
  if (mode !== undefined && mode !== 'form' && mode !== 'url') return refuse(`mode must be "form" or "url", got ${show(mode)}`);
  if (message !== undefined && typeof message !== 'string') return refuse(`message must be a string, got ${show(message)}`);
  if (elicitationId !== undefined && typeof elicitationId !== 'string') return refuse(`elicitationId must be a string, got ${show(elicitationId)}`);

  if (mode === 'url') {
    const checked = checkElicitationUrl(url);
    if (!checked.ok) return refuse(checked.reason);
    const params: ElicitParams = { ...raw, mode: 'url', url: url as string };
    return { ok: true, params, context: { host: checked.host } };
  }
  const problems = checkRequestedSchema(requestedSchema);
  if (problems.length > 0)
    return refuse(`requestedSchema ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : ''}`);
  return { ok: true, params: { ...raw } as ElicitParams, context: {} };
}

/** Whether objects/arrays nest deeper than `max` levels (iterative; stops at the first too-deep value or 1e6 values). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let seen = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max || ++seen > 1_000_000) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

export type UrlCheck = { ok: true; host: string } | { ok: false; reason: string };

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** A loopback host (localhost, 127.x.x.x, [::1]; a trailing dot ignored), where http: is allowed. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname.toLowerCase().replace(/\.$/, ''));
}
const HOSTNAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;

/**
 * The URL rules of URL mode (shared with the inbox): only `https:` URLs with a host, and `http:` for a
 * loopback host; printable ASCII only (no spaces, control characters, backslashes or escape sequences:
 * a URL is shown to a person and must read as what it opens); no user info (`https://bank@evil/`).
 * Returns the host (lower-case, with its port) to show beside the link.
 */
export function checkElicitationUrl(url: unknown): UrlCheck {
  const bad = (reason: string): UrlCheck => ({ ok: false, reason: `url ${reason}` });
  if (typeof url !== 'string' || url.length === 0) return bad(`must be a non-empty string, got ${show(url)}`);
  if (url.length > MAX_URL_LENGTH) return bad(`is ${url.length} characters long, over the bound of ${MAX_URL_LENGTH}`);
  if (/[^\x21-\x7e]/.test(url)) return bad(`must be printable ASCII with no spaces or control characters (use percent-encoding), got ${show(url)}`);
  if (url.includes('\\')) return bad(`must not contain a backslash, got ${show(url)}`);
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(url);
  const scheme = (m?.[1] ?? /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1] ?? '').toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') {
    return bad(`must be an https: link (http: only for a loopback host), got ${scheme ? `a ${scheme}: URL` : show(url)}`);
  }
  if (!m) return bad(`must be ${scheme}://host/…, got ${show(url)}`);
  const authority = m[2];
  if (authority.includes('@')) return bad(`must not carry user info before the host (it disguises where the link goes), got ${show(url)}`);
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d{0,5}))?$/.exec(authority);
  if (!hp || hp[1] === '') return bad(`has no host, got ${show(url)}`);
  const hostname = hp[1].toLowerCase();
  if (!(IPV6.test(hostname) || HOSTNAME.test(hostname))) return bad(`has an invalid host ${show(hp[1])}`);
  if (hp[2] !== undefined && hp[2] !== '' && Number(hp[2]) > 65535) return bad(`has an invalid port ${hp[2]}`);
  if (scheme === 'http' && !LOOPBACK.test(hostname.replace(/\.$/, ''))) {
    return bad(`must be https: (http: only for a loopback host: localhost, 127.x.x.x, [::1]), got ${show(url)}`);
  }
  const port = hp[2] !== undefined && hp[2] !== '' ? `:${hp[2]}` : '';
  return { ok: true, host: `${hostname}${port}` };
}

/** The host of an admitted URL-mode link, for display (undefined when it is not an admissible URL). */
export function urlHost(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const checked = checkElicitationUrl(url);
  return checked.ok ? checked.host : undefined;
}
