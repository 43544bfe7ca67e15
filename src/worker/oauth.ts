/**
 * The worker's side of servers behind OAuth (docs/oauth.md): the seal of the logins' secrets, the access tokens of this
 * worker, where authorization servers send the browser back, and the sessions' access token (`loginPool`).
 */
import type { LoginDeps } from '../activities/index.js';
import type { InboxOAuthUrls } from '../contract/client-metadata.js';
import { loginWorkflowId, SHARED_PRINCIPAL } from '../contract/login.js';
import type { EncryptionCodec } from '../codec/index.js';
import type { StateMac } from '../codec/state-mac.js';
import { inboxPublication } from '../inbox/client-metadata.js';
import {
  CredentialSeal,
  loginAuthProvider,
  SEAL_KEY_LABEL,
  SessionPool,
  type HttpServerConfig,
  type LoginTarget,
  type McpConfig,
  type PoolOptions,
  type TokenCache,
} from '../mcp/index.js';

export interface OAuthWorkerOptions {
  /**
   * Where authorization servers send the browser back (a server's `auth.redirectUrl` wins): default
   * $DURABLE_MCP_OAUTH_REDIRECT_URL, else `oauth/callback` under the inbox's public URL (`inboxPublicUrl`), else under the
   * config's `notify.inboxUrl`, else the local inbox's http://127.0.0.1:8787/oauth/callback.
   */
  redirectUrl?: string;
  /**
   * The inbox's public base URL (default $DURABLE_MCP_INBOX_PUBLIC_URL, which the inbox reads too): its `oauth/callback` is
   * then the default redirect URL, and when it is https, servers whose logins come back there and whose `auth` names no
   * `clientMetadataUrl` use the inbox's Client ID Metadata Document (`oauth/client-metadata.json` under it) as client id
   * where the authorization server supports one, else dynamic registration.
   */
  inboxPublicUrl?: string;
  /**
   * The seal of the logins' secrets: default keys derived from the payload codec's. Without a codec key the worker
   * refuses servers behind OAuth; `dev` passes a seal of its own key file instead (CredentialSeal.fromKeyFile).
   */
  seal?: CredentialSeal;
  /**
   * The fetch of the OAuth requests (tests): it gets only the URLs the worker's rules allow (src/mcp/auth/outbound.ts),
   * and connects as it likes (without it, the worker connects to the address it checked).
   */
  fetchFn?: LoginTarget['fetchFn'];
  /**
   * The MAC of the sign-ins' `state`, which the inbox checks before its callback touches Temporal: default the keys of
   * $DURABLE_MCP_OAUTH_STATE_KEYS, else keys derived from the seal's (so an inbox with the same encryption keys agrees).
   */
  stateMac?: StateMac;
}

/** Servers behind OAuth and no key to seal their credentials with: the worker does not start. */
export class OAuthEncryptionRequiredError extends Error {
  override name = 'OAuthEncryptionRequiredError';
}

export const OAUTH_REDIRECT_URL_ENV = 'DURABLE_MCP_OAUTH_REDIRECT_URL';

/** The worker's default redirect URI (see OAuthWorkerOptions.redirectUrl); `published`: the inbox's public URLs. */
export function defaultRedirectUrl(config: McpConfig, env: NodeJS.ProcessEnv = process.env, published?: InboxOAuthUrls): string {
  const fromEnv = env[OAUTH_REDIRECT_URL_ENV];
  if (fromEnv) return fromEnv;
  if (published) return published.callback;
  const inbox = config.notify?.inboxUrl;
  if (inbox) return new URL('oauth/callback', inbox.endsWith('/') ? inbox : `${inbox}/`).href;
  return 'http://127.0.0.1:8787/oauth/callback';
}

/** The OAuth side of the activities, or undefined when no enabled server is behind OAuth. Throws without a seal. */
export function loginDeps(
  config: McpConfig,
  options: OAuthWorkerOptions | undefined,
  encryption: EncryptionCodec | undefined,
  tokens: TokenCache,
  warnings: string[],
): LoginDeps | undefined {
  const servers = Object.values(config.servers).filter((s) => s.enabled && s.transport === 'http' && s.auth);
  if (servers.length === 0) return undefined;
  const seal = options?.seal ?? (encryption ? new CredentialSeal(encryption.deriveKeys(SEAL_KEY_LABEL)) : undefined);
  if (!seal) {
    throw new OAuthEncryptionRequiredError(
      `server${servers.length > 1 ? 's' : ''} ${servers.map((s) => `"${s.name}"`).join(', ')} sign${servers.length > 1 ? '' : 's'} in with OAuth, ` +
        'whose tokens the login workflow keeps: set DURABLE_MCP_ENCRYPTION_KEYS (see "Encryption") so they are never stored in plaintext, ' +
        'or disable the server. (`durable-mcp dev` seals them with a key of its own instead.)',
    );
  }
  const published = inboxPublication(options?.inboxPublicUrl, 'oauth.inboxPublicUrl');
  if (published?.noDocument) warnings.push(published.noDocument);
  warnings.push(...unboundSecrets(servers as HttpServerConfig[]));
  const fallback = options?.redirectUrl ?? defaultRedirectUrl(config, process.env, published);
  const redirectUrl = (server: HttpServerConfig) => server.auth?.redirectUrl ?? fallback;
  const stateMac = options?.stateMac ?? seal.stateMac();
  return {
    seal,
    tokens,
    redirectUrl,
    issueState: (loginId: string) => stateMac.issue(loginId),
    // The inbox's document names its callback as the one redirect URI: only logins that come back there may use it.
    clientMetadataUrl: (server: HttpServerConfig) =>
      published?.clientMetadataUrl && redirectUrl(server) === published.callback ? published.clientMetadataUrl : undefined,
    ...(options?.fetchFn ? { fetchFn: options.fetchFn } : {}),
  };
}

/**
 * A client secret or key with no `auth.issuer` goes to the first authorization server a login finds, which the MCP
 * server's metadata names (then to it only: docs/security.md): a warning for each such server.
 */
export function unboundSecrets(servers: HttpServerConfig[]): string[] {
  return servers
    .filter((s) => s.auth && !s.auth.issuer && (s.auth.clientSecret !== undefined || s.auth.privateKey !== undefined))
    .map(
      (s) =>
        `server "${s.name}": auth.${s.auth!.clientSecret !== undefined ? 'clientSecret' : 'privateKey'} without auth.issuer: it goes to ` +
        'the first authorization server a login finds, which the MCP server names; set "auth.issuer" to the one it belongs to',
    );
}

/** The worker's session pool: a session of a server behind OAuth sends its login's latest access token (read before every request). */
export function loginPool(config: McpConfig, options: PoolOptions | undefined, tokens: TokenCache): SessionPool {
  return new SessionPool(config, {
    ...options,
    authProvider: (server, principal) =>
      server.transport === 'http' && server.auth
        ? loginAuthProvider(server.name, () => tokens.latest(loginWorkflowId(server.name, principal ?? SHARED_PRINCIPAL)))
        : options?.authProvider?.(server, principal),
  });
}
