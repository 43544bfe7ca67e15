/**
 * The `auth` field of a remote server in the MCP config (docs/oauth.md): `"oauth"`, or an object whose keys are checked
 * here, each error naming the field (`auth.clientId`, …) and never showing a secret's value.
 */
import { describe } from './config-values.js';

/**
 * `"auth": "oauth"` or `"auth": { … }` of a remote server: MCP's OAuth 2.1 authorization, run by the SDK's `auth()`
 * behind the worker's provider, the person signing in through an `authorization` request (docs/oauth.md).
 */
export interface OAuthConfig {
  /** Scopes to ask for; default: the server's challenge, else its `scopes_supported`. */
  scopes?: string[];
  /** A pre-registered client id (else a Client ID Metadata Document, else dynamic registration). */
  clientId?: string;
  /** The pre-registered client's secret; may contain `${ENV_VAR}` (expanded when used, never logged). */
  clientSecret?: string;
  /** An https URL serving this client's metadata (a Client ID Metadata Document), used where the server supports it. */
  clientMetadataUrl?: string;
  /** `shared` (default): one login for the deployment; `per-call`: each call names its principal (`auth: { principal }`). */
  principal: 'shared' | 'per-call';
  /** Where the authorization server sends the browser back: the inbox's `/oauth/callback` (default: the worker's `oauthRedirectUrl`). */
  redirectUrl?: string;
  /** `client_credentials`: a machine-to-machine login (no person), with `clientSecret` or `privateKey`; absent: a person signs in. */
  grant?: 'client_credentials';
  /** `client_credentials` with `private_key_jwt`: the client's private key (PEM, PKCS #8; may contain `${ENV_VAR}`). */
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (e.g. `ES256`, `RS256`). */
  algorithm?: string;
  /**
   * The only authorization server of this server (its issuer URL): the configured client's id, secret or key go only to
   * it, and a server that names another fails its login. Without it, the first issuer a configured client is used with.
   */
  issuer?: string;
  /** The OAuth flow may fetch from loopback, private, link-local and like addresses (default: refused; outbound.ts). */
  allowPrivateNetwork?: true;
  /** An origin, besides the server's own, whose protected-resource metadata its challenges may name. */
  resourceMetadataOrigin?: string;
}

const AUTH_KEYS = [
  'scopes',
  'clientId',
  'clientSecret',
  'clientMetadataUrl',
  'principal',
  'redirectUrl',
  'grant',
  'privateKey',
  'algorithm',
  'issuer',
  'allowPrivateNetwork',
  'resourceMetadataOrigin',
];
/** The JWS algorithms the SDK's `private_key_jwt` signs with from a PEM key. */
const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

/** An http(s) URL, http only for a loopback host (the arrival rules of URLs, contract/admit.ts). */
function webUrlProblem(value: unknown, { https }: { https: boolean }): string | undefined {
  if (typeof value !== 'string') return `must be a URL string, got ${describe(value)}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an absolute URL, got ${describe(value)}`;
  }
  const loopback = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopback && !https) return undefined;
  return https ? `must be an https URL, got ${describe(value)}` : `must be an https URL (http only for a loopback host), got ${describe(value)}`;
}

/**
 * What the OAuth flow may fetch (src/mcp/auth/outbound.ts): `issuer`, the one authorization server the credentials go
 * to; `allowPrivateNetwork`, loopback, private, link-local and like addresses allowed; `resourceMetadataOrigin`, an
 * origin besides the server's own its challenge may name protected-resource metadata at.
 */
function parseOutbound(a: Record<string, unknown>, out: OAuthConfig, fail: (field: string, problem: string) => never): void {
  if (a.issuer !== undefined) {
    const problem = webUrlProblem(a.issuer, { https: false });
    if (problem) fail('auth.issuer', problem);
    out.issuer = a.issuer as string;
  }
  if (a.allowPrivateNetwork !== undefined) {
    if (typeof a.allowPrivateNetwork !== 'boolean')
      fail(
        'auth.allowPrivateNetwork',
        `must be true (the OAuth flow may fetch from loopback and private addresses) or false, got ${describe(a.allowPrivateNetwork)}`,
      );
    if (a.allowPrivateNetwork) out.allowPrivateNetwork = true;
  }
  if (a.resourceMetadataOrigin !== undefined) {
    const problem = webUrlProblem(a.resourceMetadataOrigin, { https: false });
    if (problem) fail('auth.resourceMetadataOrigin', problem);
    const url = new URL(a.resourceMetadataOrigin as string);
    if (url.origin !== (a.resourceMetadataOrigin as string).replace(/\/$/, ''))
      fail('auth.resourceMetadataOrigin', `must be an origin (scheme, host and port, no path), got ${describe(a.resourceMetadataOrigin)}`);
    out.resourceMetadataOrigin = url.origin;
  }
}

/** The `auth` field of a remote server. */
export function parseAuth(raw: unknown, fail: (field: string, problem: string) => never): OAuthConfig {
  if (raw === 'oauth') return { principal: 'shared' };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return fail('auth', `must be "oauth" or an object like {"scopes":["read"]}, got ${describe(raw)}`);
  const a = raw as Record<string, unknown>;
  const unknown = Object.keys(a).filter((k) => !AUTH_KEYS.includes(k));
  if (unknown.length > 0) fail(`auth.${unknown[0]}`, `is not a known key; "auth" takes ${AUTH_KEYS.join(', ')}`);
  const out: OAuthConfig = { principal: 'shared' };
  if (a.scopes !== undefined) {
    const scopes = typeof a.scopes === 'string' ? a.scopes.split(/\s+/).filter(Boolean) : a.scopes;
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((x) => typeof x === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(x)))
      fail('auth.scopes', `must be a non-empty array of scope names (or one space-separated string), got ${describe(a.scopes)}`);
    out.scopes = scopes as string[];
  }
  if (a.clientId !== undefined) {
    if (typeof a.clientId !== 'string' || a.clientId.length === 0) fail('auth.clientId', `must be a non-empty string, got ${describe(a.clientId)}`);
    out.clientId = a.clientId as string;
  }
  if (a.clientSecret !== undefined) {
    if (typeof a.clientSecret !== 'string' || a.clientSecret.length === 0)
      fail('auth.clientSecret', `must be a non-empty string, got ${describe(a.clientSecret, true)}`);
    if (out.clientId === undefined) fail('auth.clientSecret', 'needs "clientId": a secret belongs to a pre-registered client');
    out.clientSecret = a.clientSecret as string;
  }
  if (a.clientMetadataUrl !== undefined) {
    const problem = webUrlProblem(a.clientMetadataUrl, { https: true });
    if (problem) fail('auth.clientMetadataUrl', problem);
    if (new URL(a.clientMetadataUrl as string).pathname === '/')
      fail('auth.clientMetadataUrl', `must have a path (it is the client id), got ${describe(a.clientMetadataUrl)}`);
    out.clientMetadataUrl = a.clientMetadataUrl as string;
  }
  if (a.principal !== undefined) {
    if (a.principal !== 'shared' && a.principal !== 'per-call') fail('auth.principal', `must be "shared" or "per-call", got ${describe(a.principal)}`);
    out.principal = a.principal as OAuthConfig['principal'];
  }
  if (a.redirectUrl !== undefined) {
    const problem = webUrlProblem(a.redirectUrl, { https: false });
    if (problem) fail('auth.redirectUrl', problem);
    out.redirectUrl = a.redirectUrl as string;
  }
  if (a.grant !== undefined && a.grant !== 'authorization_code' && a.grant !== 'client_credentials')
    fail('auth.grant', `must be "authorization_code" (a person signs in, the default) or "client_credentials" (a machine), got ${describe(a.grant)}`);
  parseOutbound(a, out, fail);
  const machine = a.grant === 'client_credentials';
  for (const k of ['privateKey', 'algorithm'] as const) {
    if (a[k] !== undefined && !machine) fail(`auth.${k}`, 'needs "grant": "client_credentials" (a person\'s sign-in takes no key)');
  }
  if (!machine) return out;
  out.grant = 'client_credentials';
  if (out.clientId === undefined) fail('auth.clientId', 'is needed with "grant": "client_credentials" (the client registered for this machine)');
  for (const k of ['clientMetadataUrl', 'redirectUrl'] as const) {
    if (a[k] !== undefined) fail(`auth.${k}`, 'does not apply to "grant": "client_credentials" (no browser comes back)');
  }
  if (out.principal !== 'shared') fail('auth.principal', 'must be "shared" with "grant": "client_credentials" (the login is the machine\'s, not a person\'s)');
  if (a.privateKey !== undefined) {
    if (typeof a.privateKey !== 'string' || a.privateKey.length === 0)
      fail('auth.privateKey', `must be a non-empty string (a PEM key, or "\${VAR}"), got ${describe(a.privateKey, true)}`);
    if (out.clientSecret !== undefined) fail('auth.privateKey', 'cannot be combined with "clientSecret": give one way for the client to authenticate');
    if (typeof a.algorithm !== 'string' || !JWT_ALGORITHMS.includes(a.algorithm))
      fail('auth.algorithm', `must be the key's JWS algorithm, one of ${JWT_ALGORITHMS.join(', ')}, got ${describe(a.algorithm)}`);
    out.privateKey = a.privateKey as string;
    out.algorithm = a.algorithm as string;
  } else if (a.algorithm !== undefined) {
    fail('auth.algorithm', 'needs "privateKey" (the key it signs with)');
  } else if (out.clientSecret === undefined) {
    fail('auth', 'with "grant": "client_credentials" needs "clientSecret" (client_secret_basic) or "privateKey" and "algorithm" (private_key_jwt)');
  }
  return out;
}
