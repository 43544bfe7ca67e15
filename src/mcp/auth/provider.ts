/**
 * The worker's `OAuthClientProvider` (the MCP SDK's interface, driven by its `auth()`): everything `auth()` reads and
 * saves lives in `LoginSecrets`, which an activity of the login workflow opens from the workflow's state, hands to
 * `auth()` through this provider and seals again into the state. So the storage is the login workflow, not a file:
 * tokens and client information keyed by the authorization server's issuer, the PKCE verifier, the discovery state.
 * Never writes OAuth itself: discovery, registration, PKCE, `resource`, `iss`, refresh are the SDK's.
 */
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { expandEnv, type OAuthConfig } from '../config.js';
import { checkIssuer } from './issuer.js';
import type { LoginSecrets } from './secrets.js';

export interface ProviderOptions {
  server: string;
  loginId: string;
  config: OAuthConfig;
  redirectUrl: string;
  /** The inbox's Client ID Metadata Document URL, used when `config` names no `clientMetadataUrl`. */
  clientMetadataUrl?: string;
  /** The clock (ms), for `obtainedAt`. */
  now?: () => number;
  /** Issues a signed `state` for the login (src/codec/state-mac.ts: the inbox checks it before Temporal); default newState. */
  issueState?: (loginId: string) => string;
}

/**
 * An unsigned state, `base64url(loginId) + "." + 32 random bytes in base64url` (contract/login.ts reads the login id back):
 * the inbox refuses it. The worker issues signed ones (ProviderOptions.issueState).
 */
export function newState(loginId: string): string {
  return `${Buffer.from(loginId, 'utf8').toString('base64url')}.${randomBytes(32).toString('base64url')}`;
}

export class LoginProvider implements OAuthClientProvider {
  /** The authorization URL `auth()` would send the browser to (set by `redirectToAuthorization`). */
  authorizationUrl: URL | undefined;
  /** `auth()` discarded the tokens (an `invalid_grant` refresh, say). */
  tokensInvalidated = false;
  readonly clientMetadataUrl?: string;

  constructor(
    readonly secrets: LoginSecrets,
    private readonly options: ProviderOptions,
  ) {
    const metadataUrl = options.config.clientMetadataUrl ?? options.clientMetadataUrl;
    if (metadataUrl) this.clientMetadataUrl = metadataUrl;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.options.config.clientSecret !== undefined;
    return {
      client_name: 'durable-mcp',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      // An inbox reached over https is a web application, on a loopback host too (the SDK's default calls that native).
      ...(this.options.redirectUrl.startsWith('https:') ? { application_type: 'web' } : {}),
      ...(this.options.config.scopes ? { scope: this.options.config.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    this.secrets.state = (this.options.issueState ?? newState)(this.options.loginId);
    return this.secrets.state;
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    // The client's id and secret go to its issuer only (./issuer.ts): another one fails the login before anything is sent.
    if (ctx) checkIssuer(this.options.server, this.options.config, this.secrets, ctx.issuer);
    const saved = ctx ? this.secrets.clients?.[ctx.issuer] : undefined;
    const { clientId, clientSecret } = this.options.config;
    if (saved && saved.client_id !== clientId) return saved;
    if (clientId === undefined) return undefined;
    const secret = clientSecret === undefined ? undefined : expandEnv(clientSecret, { server: this.options.server, field: 'auth.clientSecret' });
    return { ...saved, client_id: clientId, ...(secret !== undefined ? { client_secret: secret } : {}) };
  }

  saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
    const issuer = ctx?.issuer ?? info.issuer;
    if (!issuer) return;
    // A pre-registered client's secret stays in the config (and the environment): it is not copied into the state.
    const configured = this.options.config.clientId !== undefined && info.client_id === this.options.config.clientId;
    const { client_secret: _secret, ...rest } = info as StoredOAuthClientInformation & { client_secret?: string };
    this.secrets.clients = { ...this.secrets.clients, [issuer]: configured ? rest : info };
  }

  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    const t = this.secrets.tokens;
    if (!t || !ctx || !t.issuer) return t;
    return t.issuer === ctx.issuer || t.issuer.replace(/\/$/, '') === ctx.issuer.replace(/\/$/, '') ? t : undefined;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    // A refresh that returns no new refresh token keeps the old one (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? (this.secrets.tokens?.issuer === tokens.issuer ? this.secrets.tokens?.refresh_token : undefined);
    this.secrets.tokens = { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) };
    this.secrets.obtainedAt = (this.options.now ?? Date.now)();
    delete this.secrets.codeVerifier;
    delete this.secrets.state;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.secrets.codeVerifier = verifier;
  }

  codeVerifier(): string {
    if (!this.secrets.codeVerifier) throw new Error('no PKCE code verifier is saved for this login');
    return this.secrets.codeVerifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') delete this.secrets.clients;
    if (scope === 'all' || scope === 'tokens') {
      delete this.secrets.tokens;
      delete this.secrets.obtainedAt;
      this.tokensInvalidated = true;
    }
    if (scope === 'all' || scope === 'verifier') delete this.secrets.codeVerifier;
    if (scope === 'all' || scope === 'discovery') delete this.secrets.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.secrets.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.secrets.discovery;
  }
}
