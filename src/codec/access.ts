/**
 * Who may use durable-mcp's web servers (the codec server here, and the inbox, which imports this): without a token,
 * this machine only (a loopback Host, against DNS rebinding); with one, a request carrying it as `Authorization: Bearer …`
 * or the session cookie a browser gets by opening `/?token=…` once (the token then leaves the address bar by a redirect
 * to the same path on the same origin, never to another). The cookie is HttpOnly, SameSite=Strict, scoped to the public
 * URL's path, `Secure` when the server's public URL is https (behind a TLS proxy) or the request itself is, and holds a
 * session value derived from the token (an HMAC of it), never the token. Tokens are compared in constant time and never
 * echoed.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Constant-time comparison of two secrets (of any lengths: their SHA-256 digests are compared). */
export function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export interface AccessOptions {
  /** The token; undefined: loopback only. */
  token: string | undefined;
  /** The name of the cookie that carries the token. */
  cookie: string;
  /** The realm of the `WWW-Authenticate` header. */
  realm: string;
  /** Who is refused, and why, in the server's own form (a page answers text, an API JSON). */
  refuse(c: Context, status: 401 | 421, message: string): Response;
  /** What a request without the token is told (names the variable that sets it). */
  needsToken: string;
  /** The server's name in the loopback refusal ("inbox", "codec server"). */
  what: string;
  /** The server's public base URL (behind a TLS proxy): https makes the cookie `Secure`, its path scopes the cookie. */
  publicUrl?: string;
}

/** The session cookie's value for `token`: an HMAC of it (a stolen cookie is not the token, and dies when it changes). */
export function sessionValue(token: string, cookie: string): string {
  return createHmac('sha256', token).update(`durable-mcp session v1 ${cookie}`).digest('base64url');
}

/**
 * The path of `url` as a same-origin relative reference: leading slashes and backslashes collapse into one, so
 * `//evil.example/x` becomes `/evil.example/x` (a path here), never a protocol-relative address of another origin.
 */
export function sameOriginPath(url: URL): string {
  return `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`;
}

/** The cookie's flags: `Secure` under an https public URL (or an https request), `Path` the public URL's path. */
export function cookieScope(publicUrl: string | undefined, requestUrl: URL): { secure: boolean; path: string } {
  const base = publicUrl ? new URL(publicUrl) : undefined;
  const path = base ? base.pathname.replace(/[^/]*$/, '') || '/' : '/';
  return { secure: base?.protocol === 'https:' || requestUrl.protocol === 'https:', path };
}

/** The access check as Hono middleware. */
export function accessGuard(o: AccessOptions): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (!o.token) {
      if (!isLoopback(url.hostname)) {
        return o.refuse(c, 421, `this ${o.what} answers only under a loopback name (127.0.0.1, localhost, [::1]), not ${JSON.stringify(url.hostname)}`);
      }
      return next();
    }
    const session = sessionValue(o.token, o.cookie);
    const fromQuery = c.req.query('token');
    if (fromQuery !== undefined && c.req.method === 'GET' && sameSecret(fromQuery, o.token)) {
      setCookie(c, o.cookie, session, { httpOnly: true, sameSite: 'Strict', ...cookieScope(o.publicUrl, url) });
      url.searchParams.delete('token');
      return c.redirect(sameOriginPath(url), 303);
    }
    const auth = c.req.header('authorization');
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const cookie = getCookie(c, o.cookie);
    if ((bearer !== undefined && sameSecret(bearer, o.token)) || (cookie !== undefined && sameSecret(cookie, session))) return next();
    c.header('WWW-Authenticate', `Bearer realm="${o.realm}"`);
    return o.refuse(c, 401, o.needsToken);
  };
}
