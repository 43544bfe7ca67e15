/**
 * Sign-in to the inbox with OpenID Connect (docs/people.md): the authorization code flow with PKCE, a
 * `state` and a `nonce` (kept in a short-lived signed cookie of this origin), the ID token verified with `jose` against
 * the issuer's JWKS (signature by an asymmetric algorithm the issuer lists, issuer, audience and `azp`, expiry, nonce),
 * then the person (subject, issuer, the email when `email_verified` is true, roles) in a session cookie: HMAC-signed,
 * HttpOnly, SameSite=Lax (it must come back from the issuer's redirect), `Secure` under an https public URL, scoped to
 * the public URL's path.
 * Everything the issuer sends is untrusted: the discovery document must name the configured issuer exactly, its
 * endpoints must be https (http only to a loopback issuer), bodies are bounded, and no response body reaches a message.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { signedInPersonOf, type Person } from '../contract/assignees.js';
import { cookieScope, isLoopback, sameOriginPath } from '../codec/access.js';

/** The OpenID Connect sign-in of an inbox (the operator's config: trusted). */
export interface OidcSignInOptions {
  /** The issuer's URL, exactly as its discovery document and ID tokens name it. */
  issuer: string;
  clientId: string;
  /** The client's secret (sent to the issuer's token endpoint only, as HTTP Basic). */
  clientSecret?: string;
  /** The claim that carries the person's email (default "email"). */
  emailClaim?: string;
  /** The claim that carries the person's roles: an array of strings, or one space-separated string (default "roles"). */
  rolesClaim?: string;
  /** Scopes asked for (default "openid email profile"). */
  scopes?: string;
  /** The key of the session cookie's MAC (default: a random one per process; sessions then end when the inbox restarts). */
  sessionSecret?: string;
  /** How long a session lasts (default 12 h). */
  sessionTtlMs?: number;
}

/** The sign-in from the environment (docs/people.md): set when DURABLE_MCP_INBOX_OIDC_ISSUER is. */
export function signInFromEnv(env: NodeJS.ProcessEnv = process.env): OidcSignInOptions | undefined {
  const issuer = env.DURABLE_MCP_INBOX_OIDC_ISSUER;
  if (!issuer) return undefined;
  const clientId = env.DURABLE_MCP_INBOX_OIDC_CLIENT_ID;
  if (!clientId) throw new Error('DURABLE_MCP_INBOX_OIDC_CLIENT_ID must be set with DURABLE_MCP_INBOX_OIDC_ISSUER');
  const opt = (name: string) => (env[name] ? env[name] : undefined);
  const o: OidcSignInOptions = { issuer, clientId };
  const secret = opt('DURABLE_MCP_INBOX_OIDC_CLIENT_SECRET');
  if (secret) o.clientSecret = secret;
  const email = opt('DURABLE_MCP_INBOX_OIDC_EMAIL_CLAIM');
  if (email) o.emailClaim = email;
  const roles = opt('DURABLE_MCP_INBOX_OIDC_ROLES_CLAIM');
  if (roles) o.rolesClaim = roles;
  const scopes = opt('DURABLE_MCP_INBOX_OIDC_SCOPES');
  if (scopes) o.scopes = scopes;
  const key = opt('DURABLE_MCP_INBOX_SESSION_KEY');
  if (key) o.sessionSecret = key;
  return o;
}

export const SIGN_IN_PATH = '/auth/login';
export const SIGN_IN_CALLBACK_PATH = '/auth/callback';
export const SIGN_OUT_PATH = '/auth/logout';
const SESSION_COOKIE = 'durable_mcp_inbox_person';
const FLOW_COOKIE = 'durable_mcp_inbox_signin';
const FLOW_TTL_MS = 10 * 60_000;
const MAX_BODY = 256 * 1024;
const MAX_ROLES = 100;

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  /** The asymmetric algorithms an ID token may be signed with (the issuer's list; default RS256). */
  algorithms: string[];
}

/** The algorithms an ID token may be signed with: asymmetric only (a MAC keyed by something public would be forgeable). */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

/** The issuer's `id_token_signing_alg_values_supported`, its asymmetric ones only; absent: RS256 (OpenID Connect's default). */
function algorithmsOf(v: unknown): string[] {
  if (v === undefined) return ['RS256'];
  const algs = Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string' && ASYMMETRIC.has(a)) : [];
  if (algs.length === 0) throw new Error("the issuer's id_token_signing_alg_values_supported names no asymmetric algorithm (RS256, ES256, EdDSA, …)");
  return algs;
}

/** The least length of the session cookie's key. */
export const MIN_SESSION_SECRET_LENGTH = 32;

/** The sign-in of one inbox: its routes, and who a request's session says it is. */
export interface SignIn {
  /** The signed-in person of a request, if its session cookie is valid. */
  personOf(c: Context): Person | undefined;
  /** The session of a request's valid cookie: its id (what sign-out revokes) and when it expires (ms). */
  sessionOf(c: Context): { sid: string; exp: number } | undefined;
  /** Install the sign-in and callback routes (before the access check). */
  install(app: Hono): void;
}

function b64(buf: Buffer): string {
  return buf.toString('base64url');
}

/** An endpoint the issuer names: https, or http on a loopback issuer only. */
function endpoint(issuer: URL, value: unknown, name: string): string {
  if (typeof value !== 'string') throw new Error(`the issuer's discovery document has no ${name}`);
  const url = new URL(value);
  const ok = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname) && isLoopback(issuer.hostname));
  if (!ok) throw new Error(`the issuer's ${name} must be an https URL`);
  return url.href;
}

/** A JSON body of at most MAX_BODY bytes (never quoted in an error). */
async function boundedJson(res: Response, what: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (text.length > MAX_BODY) throw new Error(`${what}: the response is too large`);
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch {
    throw new Error(`${what}: the response is not a JSON object`);
  }
}

/** Roles from a claim: an array of strings or a space-separated string; bounded; anything else: none. */
function rolesOf(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/\s+/) : [];
  return list.filter((r): r is string => typeof r === 'string' && r !== '' && r.length <= 200).slice(0, MAX_ROLES);
}

/** JSON values sealed with an HMAC (each purpose its own), opened only when the MAC holds and `exp` has not passed. */
function sealer(key: string) {
  const mac = (purpose: string, body: string) => createHmac('sha256', key).update(`durable-mcp inbox ${purpose} v1 ${body}`).digest('base64url');
  return {
    seal(purpose: string, value: unknown): string {
      const body = b64(Buffer.from(JSON.stringify(value)));
      return `${body}.${mac(purpose, body)}`;
    },
    open<T>(purpose: string, sealed: string | undefined): T | undefined {
      const [body, tag] = (sealed ?? '').split('.');
      if (!body || !tag) return undefined;
      const want = Buffer.from(mac(purpose, body));
      const got = Buffer.from(tag);
      if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
      try {
        const v = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & { exp?: number };
        return typeof v.exp === 'number' && v.exp > Date.now() ? v : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export function oidcSignIn(o: OidcSignInOptions, publicUrl: string | undefined): SignIn {
  const issuer = new URL(o.issuer);
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopback(issuer.hostname)))
    throw new Error(`signIn.issuer must be an https URL (http only on loopback), got ${JSON.stringify(o.issuer)}`);
  if (!o.clientId) throw new Error('signIn.clientId must be a non-empty string');
  if (o.sessionSecret !== undefined && o.sessionSecret.length < MIN_SESSION_SECRET_LENGTH)
    throw new Error(`signIn.sessionSecret (DURABLE_MCP_INBOX_SESSION_KEY) must be at least ${MIN_SESSION_SECRET_LENGTH} characters`);
  const key = o.sessionSecret ?? b64(randomBytes(32));
  const ttl = o.sessionTtlMs ?? 12 * 60 * 60_000;
  const { seal, open } = sealer(key);
  let discovery: Promise<Discovery> | undefined;
  const discover = () =>
    (discovery ??= (async () => {
      const res = await fetch(new URL('.well-known/openid-configuration', issuer.href.endsWith('/') ? issuer.href : `${issuer.href}/`), {
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`the issuer's discovery document answered HTTP ${res.status}`);
      const doc = await boundedJson(res, "the issuer's discovery document");
      if (doc.issuer !== o.issuer) throw new Error(`the discovery document names another issuer than ${o.issuer}`);
      return {
        authorization_endpoint: endpoint(issuer, doc.authorization_endpoint, 'authorization_endpoint'),
        token_endpoint: endpoint(issuer, doc.token_endpoint, 'token_endpoint'),
        jwks_uri: endpoint(issuer, doc.jwks_uri, 'jwks_uri'),
        algorithms: algorithmsOf(doc.id_token_signing_alg_values_supported),
      };
    })().catch((err) => {
      discovery = undefined;
      throw err;
    }));
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const redirectUri = (c: Context) => {
    const base = publicUrl ? new URL(publicUrl) : new URL(new URL(c.req.url).origin);
    return new URL(SIGN_IN_CALLBACK_PATH.slice(1), base.href.endsWith('/') ? base.href : `${base.href}/`).href;
  };
  const scope = (c: Context) => cookieScope(publicUrl, new URL(c.req.url));

  return {
    sessionOf(c) {
      const s = open<{ sid?: string; exp: number }>('session', getCookie(c, SESSION_COOKIE));
      return s && typeof s.sid === 'string' ? { sid: s.sid, exp: s.exp } : undefined;
    },
    personOf(c) {
      const s = open<{ sub: string; iss: string; email?: string; roles?: string[]; exp: number }>('session', getCookie(c, SESSION_COOKIE));
      // The session keeps a verified email only; one of another issuer (the config changed since) names nobody.
      return s ? signedInPersonOf({ ...s, ...(s.email ? { email_verified: true } : {}) }, o.issuer) : undefined;
    },
    install(app) {
      app.get(SIGN_IN_PATH, async (c) => {
        let d: Discovery;
        try {
          d = await discover();
        } catch (err) {
          return c.text(`sign-in is not available: ${(err as Error).message}`, 502);
        }
        // Back to a path of this inbox only.
        const next = sameOriginPath(new URL(c.req.query('next') ?? '/', 'http://x'));
        const state = b64(randomBytes(24));
        const nonce = b64(randomBytes(24));
        const verifier = b64(randomBytes(32));
        setCookie(c, FLOW_COOKIE, seal('flow', { state, nonce, verifier, next, exp: Date.now() + FLOW_TTL_MS }), {
          httpOnly: true,
          sameSite: 'Lax',
          maxAge: FLOW_TTL_MS / 1000,
          ...scope(c),
        });
        const url = new URL(d.authorization_endpoint);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('client_id', o.clientId);
        url.searchParams.set('redirect_uri', redirectUri(c));
        url.searchParams.set('scope', o.scopes ?? 'openid email profile');
        url.searchParams.set('state', state);
        url.searchParams.set('nonce', nonce);
        url.searchParams.set('code_challenge', b64(createHash('sha256').update(verifier).digest()));
        url.searchParams.set('code_challenge_method', 'S256');
        return c.redirect(url.href, 302);
      });

      app.get(SIGN_IN_CALLBACK_PATH, async (c) => {
        const flow = open<{ state: string; nonce: string; verifier: string; next: string }>('flow', getCookie(c, FLOW_COOKIE));
        deleteCookie(c, FLOW_COOKIE, scope(c));
        const state = c.req.query('state') ?? '';
        if (!flow || state.length !== flow.state.length || !timingSafeEqual(Buffer.from(state), Buffer.from(flow.state)))
          return c.text('this sign-in is not one this inbox started (or it took too long): sign in again', 400);
        // The issuer's error code only (never its description: untrusted text).
        if (c.req.query('error')) return c.text(`the issuer refused the sign-in (${(c.req.query('error') ?? '').replace(/[^\w.-]/g, '').slice(0, 60)})`, 403);
        const code = c.req.query('code');
        if (!code) return c.text('the issuer sent no code', 400);
        let payload: JWTPayload;
        try {
          const d = await discover();
          jwks ??= createRemoteJWKSet(new URL(d.jwks_uri), { timeoutDuration: 10_000 });
          payload = await verifiedIdToken(o, d, jwks, { code, redirectUri: redirectUri(c), verifier: flow.verifier, nonce: flow.nonce });
        } catch (err) {
          return c.text(`sign-in failed: ${(err as Error).message}`, 403);
        }
        // An email the issuer has not verified is anyone's to claim: the person is then matched by subject only.
        const roles = rolesOf(payload[o.rolesClaim ?? 'roles']);
        const email = signedInPersonOf(
          { sub: payload.sub, iss: payload.iss, email: payload[o.emailClaim ?? 'email'], email_verified: payload.email_verified },
          o.issuer,
        )?.email;
        setCookie(
          c,
          SESSION_COOKIE,
          seal('session', {
            sid: b64(randomBytes(18)),
            sub: payload.sub,
            iss: o.issuer,
            ...(email !== undefined ? { email } : {}),
            ...(roles.length > 0 ? { roles } : {}),
            exp: Date.now() + ttl,
          }),
          { httpOnly: true, sameSite: 'Lax', maxAge: Math.floor(ttl / 1000), ...scope(c) },
        );
        return c.redirect(flow.next, 303);
      });
    },
  };
}

/**
 * The code exchanged at the token endpoint (the client's secret as HTTP Basic, to the configured issuer only), and the ID
 * token it returns verified: signature against the issuer's JWKS (an asymmetric algorithm the issuer lists), issuer,
 * audience (and `azp` when there are several), age, this sign-in's nonce, a subject.
 */
async function verifiedIdToken(
  o: OidcSignInOptions,
  { token_endpoint: tokenEndpoint, algorithms }: Discovery,
  jwks: ReturnType<typeof createRemoteJWKSet>,
  flow: { code: string; redirectUri: string; verifier: string; nonce: string },
): Promise<JWTPayload> {
  const basic = o.clientSecret ? Buffer.from(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(o.clientSecret)}`).toString('base64') : undefined;
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    redirect: 'error',
    signal: AbortSignal.timeout(10_000),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...(basic ? { authorization: `Basic ${basic}` } : {}) },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.verifier,
      ...(basic ? {} : { client_id: o.clientId }),
    }),
  });
  if (!res.ok) throw new Error(`the token endpoint answered HTTP ${res.status}`);
  const tokens = await boundedJson(res, 'the token endpoint');
  if (typeof tokens.id_token !== 'string') throw new Error('the token endpoint sent no id_token');
  const { payload } = await jwtVerify(tokens.id_token, jwks, { issuer: o.issuer, audience: o.clientId, maxTokenAge: '10m', algorithms });
  // Several audiences: the token must say it was issued to this client (azp); one that names another party is refused.
  if ((Array.isArray(payload.aud) && payload.aud.length > 1) || payload.azp !== undefined) {
    if (payload.azp !== o.clientId) throw new Error('the ID token was issued to another client (azp)');
  }
  if (payload.nonce !== flow.nonce) throw new Error('the ID token is not for this sign-in (nonce)');
  if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) throw new Error('the ID token has no subject');
  return payload;
}

/**
 * `POST /auth/logout` (after the CSRF check): the session is revoked on every replica (`revoke`: src/inbox/sign-outs.ts),
 * and its cookie goes.
 */
export function installSignOut(app: Hono, signIn: SignIn, revoke: (sid: string, exp: number) => Promise<void>, publicUrl?: string): void {
  app.post(SIGN_OUT_PATH, async (c) => {
    const session = signIn.sessionOf(c);
    if (session) await revoke(session.sid, session.exp);
    deleteCookie(c, SESSION_COOKIE, cookieScope(publicUrl, new URL(c.req.url)));
    return c.redirect('/', 303);
  });
}
