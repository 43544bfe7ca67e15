/**
 * The two steps of a login, each one `auth()` of the MCP SDK over the login's secrets (provider.ts): `authorizeLogin`
 * (discovery, client identity, then a refresh when there is a refresh token, else the authorization URL a person must
 * open) and `exchangeLoginCode` (the authorization response: `iss` checked, the code exchanged with the PKCE verifier).
 * The login workflow runs them as activities, one at a time. Errors are sorted into McpSourceErrors `AuthorizationFailed`: permanent
 * (the configuration or the servers must change) or not (a retry may help).
 */
import {
  auth,
  AuthorizationServerMismatchError,
  InsecureTokenEndpointError,
  IssuerMismatchError,
  OAuthClientFlowError,
  OAuthError,
  OAuthErrorCode,
  RegistrationRejectedError,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { checkElicitationUrl } from '../../contract/admit.js';
import type { TokenInfo } from '../../contract/login.js';
import { isMcpSourceError, McpSourceError, McpSourceErrorCodes } from '../errors.js';
import type { HttpServerConfig, OAuthConfig } from '../config.js';
import { MachineLoginProvider } from './machine.js';
import { OutboundGuard, resourceMetadataProblem } from './outbound.js';
import { LoginProvider } from './provider.js';
import type { LoginSecrets } from './secrets.js';

export type { TokenInfo } from '../../contract/login.js';

export type AuthorizeResult =
  | { kind: 'authorized'; secrets: LoginSecrets; info: TokenInfo }
  | { kind: 'redirect'; secrets: LoginSecrets; url: string; state: string; issuer?: string; scopes?: string; refreshRejected: boolean };

export type ExchangeResult = { kind: 'authorized'; secrets: LoginSecrets; info: TokenInfo } | { kind: 'rejected'; secrets: LoginSecrets; reason: string };

/**
 * A step of a login failed: the MCP plane's error AuthorizationFailed, `permanent` when trying again cannot help (the
 * configuration or the servers must change).
 */
function flowFailure(message: string, permanent: boolean): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.AuthorizationFailed, message, { permanent });
}

export interface LoginTarget {
  server: HttpServerConfig & { auth: OAuthConfig };
  loginId: string;
  redirectUrl: string;
  /** The inbox's Client ID Metadata Document, when the server's `auth` names no `clientMetadataUrl` of its own. */
  clientMetadataUrl?: string;
  fetchFn?: FetchLike;
  /** Issues the signed `state` of an authorization request (the worker's state MAC). */
  issueState?: (loginId: string) => string;
}

/** A person's sign-in (the authorization code grant), or a machine's (`grant: "client_credentials"`: ./machine.ts). */
function provider(target: LoginTarget, secrets: LoginSecrets): LoginProvider | MachineLoginProvider {
  const config = target.server.auth;
  if (config.grant === 'client_credentials') return new MachineLoginProvider(secrets, { server: target.server.name, config });
  return new LoginProvider(secrets, {
    server: target.server.name,
    loginId: target.loginId,
    config,
    redirectUrl: target.redirectUrl,
    ...(target.clientMetadataUrl ? { clientMetadataUrl: target.clientMetadataUrl } : {}),
    ...(target.issueState ? { issueState: target.issueState } : {}),
  });
}

export function tokenInfo(secrets: LoginSecrets): TokenInfo {
  const t = secrets.tokens;
  const expiresIn = typeof t?.expires_in === 'number' ? t.expires_in : undefined;
  return {
    ...(t?.issuer ? { issuer: t.issuer } : {}),
    ...(t?.scope ? { scopes: t.scope } : {}),
    ...(expiresIn !== undefined && secrets.obtainedAt !== undefined ? { expiresAtMs: secrets.obtainedAt + expiresIn * 1000 } : {}),
    refreshable: typeof t?.refresh_token === 'string',
  };
}

/** An OAuth error code as the authorization server sent it, when it is a plain code (else not shown). */
function errorCode(code: unknown): string {
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : 'an error';
}

/**
 * Why `auth()` failed, without any secret and without what an outside server wrote: a refused fetch says which rule
 * (./outbound.ts); a failed discovery, registration or token request names the host and the status, never the body.
 */
export function flowError(err: unknown, server: string, guard?: Pick<OutboundGuard, 'refused' | 'failure'>): McpSourceError {
  const where = `server "${server}": OAuth`;
  if (isMcpSourceError(err, McpSourceErrorCodes.AuthorizationFailed)) return err;
  if (guard?.refused) return flowFailure(guard.refused, true);
  const failed = guard?.failure;
  const answered = failed ? `${failed.host} answered HTTP ${failed.status} to ${failed.method === 'GET' ? 'a GET' : `a ${failed.method}`}` : undefined;
  if (err instanceof IssuerMismatchError) return flowFailure(`${where}: the authorization server's issuer does not match (${err.kind})`, true);
  if (err instanceof AuthorizationServerMismatchError) return flowFailure(`${where}: ${err.message.slice(0, 400)}`, true);
  if (err instanceof InsecureTokenEndpointError) return flowFailure(`${where}: the token endpoint is not https (${err.tokenEndpoint})`, true);
  if (err instanceof RegistrationRejectedError) return flowFailure(`${where}: the client registration was refused${answered ? ` (${answered})` : ''}`, true);
  if (err instanceof OAuthClientFlowError) return flowFailure(`${where}: ${err.message.slice(0, 300)}`, true);
  if (err instanceof OAuthError) {
    const transient = err.code === OAuthErrorCode.ServerError || err.code === OAuthErrorCode.TemporarilyUnavailable;
    return flowFailure(`${where}: the authorization server answered ${errorCode(err.code)}${answered ? ` (${answered})` : ''}`, !transient);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/does not match|Incompatible auth server|must be saveable|information is required/.test(message))
    return flowFailure(`${where}: ${message.slice(0, 400)}`, true);
  if (answered) return flowFailure(`${where}: ${answered}`, !(failed!.status < 500));
  if (err instanceof TypeError) return flowFailure(`${where}: ${message.slice(0, 200)}`, false);
  return flowFailure(`${where}: ${err instanceof Error ? err.name : 'an error'}: the authorization server's answer is not valid`, true);
}

/**
 * The guarded fetch of one step (./outbound.ts), and the check of a challenge's protected-resource metadata URL: only
 * from the server's own origin or the one its config names.
 */
function outbound(target: LoginTarget, resourceMetadataUrl?: string): OutboundGuard {
  if (resourceMetadataUrl !== undefined) {
    const problem = resourceMetadataProblem(target.server, resourceMetadataUrl);
    if (problem) throw flowFailure(problem, true);
  }
  return new OutboundGuard({
    server: target.server.name,
    allowPrivateNetwork: target.server.auth.allowPrivateNetwork === true,
    ...(target.fetchFn ? { base: target.fetchFn } : {}),
  });
}

/** Runs `auth()` with the guard's fetch; its failure, or a refusal the SDK went past, is the step's AuthorizationFailed. */
async function guarded<T>(target: LoginTarget, guard: OutboundGuard, step: (fetchFn: FetchLike) => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await step(guard.fetch);
  } catch (err) {
    throw flowError(err, target.server.name, guard);
  }
  if (guard.refused) throw flowFailure(guard.refused, true);
  return result;
}

/**
 * A step-up beyond what a dynamically registered client was registered for: such a client may ask only for the scopes
 * of its registration (RFC 7591 `scope`; oidc-provider refuses more with `invalid_scope`), and the SDK registered it with
 * the first sign-in's scope. Forgetting the registration makes `auth()` register again, for the wider scope. A
 * pre-registered client and a metadata document's are kept (their scopes are the authorization server's business).
 */
function forgetNarrowRegistrations(secrets: LoginSecrets, scope: string, config: OAuthConfig): void {
  if (config.clientId !== undefined || !secrets.clients) return;
  const wanted = scope.split(/\s+/).filter(Boolean);
  for (const [issuer, client] of Object.entries(secrets.clients)) {
    const registered = (client as { scope?: unknown }).scope;
    if (client.client_id === config.clientMetadataUrl || typeof registered !== 'string') continue;
    const allowed = new Set(registered.split(/\s+/));
    if (wanted.some((s) => !allowed.has(s))) delete secrets.clients[issuer];
  }
}

/**
 * Discovery and client identity, then a refresh (a refresh token is stored and `forceReauthorization` is not set) or
 * an authorization request. `rediscover`: forget the discovery state first (the server refused the last token, so
 * its `authorization_servers` may have changed). A refresh that fails for a reason other than the authorization
 * server refusing it (`invalid_grant`) throws a retryable error instead of asking a person.
 */
export async function authorizeLogin(
  target: LoginTarget,
  secrets: LoginSecrets,
  options: { scope?: string; forceReauthorization?: boolean; rediscover?: boolean; resourceMetadataUrl?: string } = {},
): Promise<AuthorizeResult> {
  const work: LoginSecrets = structuredClone(secrets);
  if (options.rediscover) delete work.discovery;
  const scope = options.scope ?? target.server.auth.scopes?.join(' ');
  if (options.forceReauthorization && scope) forgetNarrowRegistrations(work, scope, target.server.auth);
  const p = provider(target, work);
  const hadRefresh = typeof work.tokens?.refresh_token === 'string' && !options.forceReauthorization;
  const guard = outbound(target, options.resourceMetadataUrl);
  const result = await guarded(target, guard, (fetchFn) =>
    auth(p, {
      serverUrl: target.server.url,
      ...(scope ? { scope } : {}),
      ...(options.resourceMetadataUrl ? { resourceMetadataUrl: new URL(options.resourceMetadataUrl) } : {}),
      ...(options.forceReauthorization ? { forceReauthorization: true } : {}),
      fetchFn,
    }),
  );
  if (result === 'AUTHORIZED') return { kind: 'authorized', secrets: work, info: tokenInfo(work) };
  if (hadRefresh && !p.tokensInvalidated) {
    throw flowFailure(`server "${target.server.name}": OAuth: the refresh failed (the authorization server could not be reached or failed); retrying`, false);
  }
  const url = p.authorizationUrl;
  if (!url || !work.state) throw flowFailure(`server "${target.server.name}": OAuth: auth() asked for a redirect without an authorization URL`, true);
  const checked = checkElicitationUrl(url.href);
  if (!checked.ok) throw flowFailure(`server "${target.server.name}": OAuth: the authorization URL is refused: ${checked.reason}`, true);
  const issuer = work.discovery?.authorizationServerMetadata?.issuer ?? work.discovery?.authorizationServerUrl;
  const scopes = url.searchParams.get('scope') ?? undefined;
  return {
    kind: 'redirect',
    secrets: work,
    url: url.href,
    state: work.state,
    ...(issuer ? { issuer } : {}),
    ...(scopes ? { scopes } : {}),
    refreshRejected: hadRefresh,
  };
}

/**
 * The authorization response: `iss` validated against the recorded issuer (RFC 9207), the code exchanged with the PKCE
 * verifier. A code the authorization server refuses (`invalid_grant`: used, expired) is `rejected`: the login asks again; an
 * `iss` mismatch throws (non-retryable).
 */
export async function exchangeLoginCode(target: LoginTarget, secrets: LoginSecrets, response: { code: string; iss?: string }): Promise<ExchangeResult> {
  const work: LoginSecrets = structuredClone(secrets);
  const p = provider(target, work);
  const guard = outbound(target);
  try {
    const result = await auth(p, {
      serverUrl: target.server.url,
      authorizationCode: response.code,
      ...(response.iss !== undefined ? { iss: response.iss } : {}),
      fetchFn: guard.fetch,
    });
    if (result !== 'AUTHORIZED') throw flowFailure(`server "${target.server.name}": OAuth: the code exchange did not authorize`, true);
  } catch (err) {
    if (!guard.refused && err instanceof OAuthError && (err.code === OAuthErrorCode.InvalidGrant || err.code === OAuthErrorCode.InvalidRequest)) {
      delete work.codeVerifier;
      delete work.state;
      return { kind: 'rejected', secrets: work, reason: `the authorization server refused the code (${err.code})` };
    }
    // An `iss` that is not the recorded issuer's (RFC 9207: wrong, missing where advertised, or not the exact string) is
    // a mix-up: the code is never sent, and the login fails (AuthorizationFailed) instead of asking again, which would
    // send the person to the same authorization server's same answer again and again.
    throw flowError(err, target.server.name, guard);
  }
  if (guard.refused) throw flowFailure(guard.refused, true);
  return { kind: 'authorized', secrets: work, info: tokenInfo(work) };
}
