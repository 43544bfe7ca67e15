/**
 * The codec server (Hono on Node): Temporal's remote codec protocol, through which the Temporal UI and CLI show the
 * payloads the payload codec encrypted, to the people allowed to see them.
 *
 * Protocol (Temporal's "Codec Server" docs, samples-go codec-server/protocol.md):
 * - `POST …/encode` and `POST …/decode` (only the last segment of the path counts, so it can be mounted under any
 *   prefix), body and answer `{"payloads":[{"metadata":{"<key>":"<base64>"},"data":"<base64>"}]}` (Payloads as
 *   protobuf JSON), `Content-Type: application/json`;
 * - the `X-Namespace` header names the namespace (accepted; restricted when `namespaces` is set);
 * - CORS for the Temporal UI's origin(s): a browser's preflight from another origin gets no Access-Control-Allow-Origin.
 *
 * Access: with a token (DURABLE_MCP_CODEC_TOKEN) every encode and decode needs `Authorization: Bearer <token>` (what
 * `temporal … --codec-auth "Bearer <token>"` sends) or the cookie a browser gets from opening `/?token=<token>` once
 * (what the Temporal UI sends when it includes credentials, TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true); tokens are
 * compared in constant time. Without one it binds only to loopback and answers only under a loopback Host (a page
 * of another site whose name resolves to 127.0.0.1 is refused), like the inbox. It never logs: not a payload, not
 * the token.
 *
 * Its own process, not routes of the inbox: the codec server holds the keys and decrypts anything it is sent, while
 * the inbox is a page for the people who answer (who may be many more than those who may read every payload), so
 * each has its own token, bind address and exposure.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { accessGuard, isLoopback } from './access.js';
import { CodecError, CodecErrorCodes } from './errors.js';
import { listen } from './listen.js';

export const DEFAULT_CODEC_HOST = '127.0.0.1';
/** The port of Temporal's codec server samples. */
export const DEFAULT_CODEC_PORT = 8081;
export const CODEC_TOKEN_ENV = 'DURABLE_MCP_CODEC_TOKEN';
/** Comma-separated origins of the Temporal UI allowed to call the codec server from a browser. */
export const CODEC_UI_ORIGINS_ENV = 'DURABLE_MCP_CODEC_UI_ORIGINS';
/** The codec server's public base URL behind a TLS proxy (https: its session cookie is `Secure`; its path scopes it). */
export const CODEC_PUBLIC_URL_ENV = 'DURABLE_MCP_CODEC_PUBLIC_URL';
/** The largest request body (bytes): a batch of payloads the UI or CLI sends at once. */
export const DEFAULT_CODEC_MAX_BODY_BYTES = 32 * 1024 * 1024;
const COOKIE = 'durable_mcp_codec_session';
/** The headers the Temporal UI sends (Authorization when it passes its access token). */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Namespace'];

function tokenRequired(host: string): CodecError {
  return new CodecError(
    CodecErrorCodes.TokenRequired,
    `the codec server refuses to listen on ${host} without a token: set ${CODEC_TOKEN_ENV} (every encode and decode then needs it), or bind to 127.0.0.1`,
    { host },
  );
}
function optionError(message: string): CodecError {
  return new CodecError(CodecErrorCodes.InvalidOption, message);
}

export interface CodecServerOptions {
  /** The payload codec (e.g. `EncryptionCodec.fromEnv()`). */
  codec: PayloadCodec;
  /** Bind address (default 127.0.0.1). Anything but loopback needs `token`. */
  host?: string;
  /** Port (default 8081; 0 picks a free one). */
  port?: number;
  /** Required on every encode and decode when set. Not read from the environment here (the command does). */
  token?: string;
  /** Origins of the Temporal UI (e.g. `http://localhost:8080`) whose pages may call it (CORS, with credentials). */
  uiOrigins?: string[];
  /** When set, only these namespaces (the `X-Namespace` header) are encoded and decoded. */
  namespaces?: string[];
  /** The largest request body in bytes (default 32 MiB). */
  maxBodyBytes?: number;
  /**
   * Where browsers reach it, behind a TLS proxy (e.g. https://codec.example.com/): an https URL makes the session cookie
   * `Secure`, and its path scopes the cookie. Not read from the environment here (the command reads $DURABLE_MCP_CODEC_PUBLIC_URL).
   */
  publicUrl?: string;
}

/** A public URL as the codec server takes it (absolute http or https, no query), or a CodecError (InvalidOption). */
export function parsePublicUrl(value: string, field = 'publicUrl'): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw optionError(`${field} must be an absolute URL like https://codec.example.com/, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw optionError(`${field} must be an https (or http) URL, got ${JSON.stringify(value)}`);
  if (url.search || url.hash || url.username || url.password)
    throw optionError(`${field} must have no user info, query or fragment, got ${JSON.stringify(value)}`);
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url.href;
}

export interface CodecServerHandle {
  /** The codec endpoint, without a trailing slash (the UI and the CLI append `/decode`), e.g. http://127.0.0.1:8081 */
  url: string;
  close(): Promise<void>;
}

/** An origin as a browser sends it (`scheme://host[:port]`), or a CodecError (InvalidOption). */
export function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw optionError(`a UI origin must be an address like http://localhost:8080, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw optionError(`a UI origin must be http or https, got ${JSON.stringify(value)}`);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw optionError(`a UI origin is scheme://host[:port] with nothing after it, got ${JSON.stringify(value)}`);
  return url.origin;
}

/** What a request body must be; any other shape is a 400 naming what is wrong (never echoing the content). */
class BadBody extends Error {}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
function bytesOf(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value)) throw new BadBody(`${where} must be a base64 string`);
  return new Uint8Array(Buffer.from(value, 'base64'));
}

/** `{"payloads":[…]}` (protobuf JSON of temporal.api.common.v1.Payloads) to payloads. */
export function payloadsFromJson(body: unknown): Payload[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadBody('the body must be a JSON object {"payloads":[…]}');
  const list = (body as { payloads?: unknown }).payloads;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new BadBody('"payloads" must be an array');
  return list.map((p: unknown, i) => {
    const where = `payloads[${i}]`;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new BadBody(`${where} must be an object {"metadata":{…},"data":"…"}`);
    const { metadata, data } = p as { metadata?: unknown; data?: unknown };
    const out: Payload = { metadata: {} };
    if (metadata !== undefined && metadata !== null) {
      if (typeof metadata !== 'object' || Array.isArray(metadata)) throw new BadBody(`${where}.metadata must be an object of base64 strings`);
      for (const [k, v] of Object.entries(metadata)) out.metadata![k] = bytesOf(v, `${where}.metadata[${JSON.stringify(k.slice(0, 64))}]`);
    }
    out.data = data === undefined || data === null ? new Uint8Array() : bytesOf(data, `${where}.data`);
    return out;
  });
}

/** Payloads to `{"payloads":[…]}` (protobuf JSON: bytes as standard base64). */
export function payloadsToJson(payloads: Payload[]): { payloads: Array<{ metadata: Record<string, string>; data: string }> } {
  return {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
      data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
    })),
  };
}

/** The codec server as a Hono app (for embedding, or serving with another adapter). */
export function createCodecApp(options: Omit<CodecServerOptions, 'host' | 'port'>): Hono {
  const { codec, token } = options;
  const origins = (options.uiOrigins ?? []).map(parseOrigin);
  const namespaces = options.namespaces?.length ? new Set(options.namespaces) : undefined;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_CODEC_MAX_BODY_BYTES;
  const publicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl);
  const app = new Hono();

  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
      referrerPolicy: 'no-referrer',
      // The UI's pages read the answers: cross-origin reads are granted by CORS, not blocked here.
      crossOriginResourcePolicy: false,
      strictTransportSecurity: false,
    }),
  );
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });
  // CORS first: a browser's preflight carries no credentials. Only the UI's origins are granted, with credentials
  // (the UI includes cookies when TEMPORAL_CODEC_INCLUDE_CREDENTIALS is set); any other origin gets no grant.
  app.use(
    '*',
    cors({
      origin: (origin) => (origins.includes(origin) ? origin : null),
      allowMethods: ['POST', 'GET', 'OPTIONS'],
      allowHeaders: ALLOWED_HEADERS,
      credentials: true,
      maxAge: 600,
    }),
  );
  app.use(
    '*',
    accessGuard({
      token,
      cookie: COOKIE,
      realm: 'durable-mcp codec server',
      what: 'codec server',
      ...(publicUrl ? { publicUrl } : {}),
      needsToken: `this codec server needs its token: send "Authorization: Bearer …" (${CODEC_TOKEN_ENV}), or open /?token=… once in the browser`,
      refuse: (c, status, error) => c.json({ error }, status),
    }),
  );

  app.get('/', (c) =>
    c.text(
      'durable-mcp codec server: POST /encode and /decode (Temporal remote codec protocol).' +
        (token ? ' This browser holds the token now: the Temporal UI can decode through it (with credentials included).' : ''),
    ),
  );

  const convert = async (c: Context, direction: 'encode' | 'decode') => {
    // JSON only: a cross-site page cannot send that content type without a preflight, which only the UI's origins pass.
    if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) return c.json({ error: 'send the payloads as Content-Type: application/json' }, 415);
    const namespace = c.req.header('x-namespace');
    if (namespaces && (namespace === undefined || !namespaces.has(namespace)))
      return c.json({ error: `namespace ${JSON.stringify(namespace ?? null)} is not served here (X-Namespace header)` }, 403);
    let payloads: Payload[];
    try {
      payloads = payloadsFromJson(await c.req.json());
    } catch (err) {
      return c.json({ error: err instanceof BadBody ? err.message : 'the body must be JSON: {"payloads":[{"metadata":{…},"data":"…"}]}' }, 400);
    }
    let out: Payload[];
    try {
      out = direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    } catch (err) {
      // The codec's errors name a key id or what failed, never key material or payload content.
      const e = err as Error;
      return c.json({ error: `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}` }, 422);
    }
    return c.json(payloadsToJson(out));
  };
  const limit = bodyLimit({ maxSize: maxBodyBytes, onError: (c) => c.json({ error: `the body is larger than ${maxBodyBytes} bytes` }, 413) });
  // Only the last segment of the path decides (the protocol's rule): …/decode, …/encode under any prefix.
  app.post('*', limit, async (c) => {
    const last = new URL(c.req.url).pathname.split('/').filter(Boolean).at(-1);
    if (last === 'encode' || last === 'decode') return convert(c, last);
    return c.json({ error: 'POST …/encode or …/decode' }, 404);
  });
  return app;
}

/** Serve the codec server. Refuses a non-loopback address without a token. */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServerHandle> {
  const host = options.host ?? DEFAULT_CODEC_HOST;
  const port = options.port ?? DEFAULT_CODEC_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw optionError(`port must be a whole number from 0 to 65535, got ${JSON.stringify(port)}`);
  if (!isLoopback(host) && !options.token) throw tokenRequired(host);
  const app = createCodecApp(options);
  const listening = await listen(app.fetch, host, port);
  return { url: listening.origin, close: listening.close };
}
