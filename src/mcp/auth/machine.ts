/**
 * A machine-to-machine login (`"auth": { "grant": "client_credentials", … }`; docs/oauth.md): no person, no browser. The
 * token request is the MCP SDK's own: its `ClientCredentialsProvider` (`client_secret_basic`, or what the server
 * supports) or `PrivateKeyJwtProvider` (`private_key_jwt`, a JWT signed with the configured key), driven by `auth()`.
 * This provider hands them the login's storage: the tokens and the discovery state live in `LoginSecrets` (sealed in
 * the login workflow's state, like a person's sign-in), the client secret or key stays in the config (expanded from
 * `${ENV}` when used, never copied into the state). A new token is a new client-credentials grant (`auth()` makes one
 * each time it runs without a redirect URL), so "refresh" needs nothing more.
 *
 * The credentials go only to one authorization server: `auth.issuer` when configured, else the one the first token
 * came from (kept with the tokens), else the one discovered now (the SDK's `expectedIssuer`).
 */
import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { expandEnv, type OAuthConfig } from '../config.js';
import { checkIssuer } from './issuer.js';
import type { LoginSecrets } from './secrets.js';

type SdkProvider = ClientCredentialsProvider | PrivateKeyJwtProvider;

export interface MachineProviderOptions {
  server: string;
  config: OAuthConfig;
  /** The clock (ms), for `obtainedAt`. */
  now?: () => number;
}

export class MachineLoginProvider implements OAuthClientProvider {
  /** Never set: a machine login has no authorization URL. */
  readonly authorizationUrl: URL | undefined = undefined;
  /** `auth()` discarded the tokens. */
  tokensInvalidated = false;
  private sdk: SdkProvider | undefined;

  constructor(
    readonly secrets: LoginSecrets,
    private readonly options: MachineProviderOptions,
  ) {}

  /** The SDK's provider, made once the issuer is known (its `expectedIssuer`). */
  private provider(issuer: string): SdkProvider {
    if (this.sdk) return this.sdk;
    const { server, config } = this.options;
    const expectedIssuer = config.issuer ?? this.secrets.tokens?.issuer ?? issuer;
    const clientId = config.clientId!;
    const scope = config.scopes?.join(' ');
    const common = { clientId, clientName: 'durable-mcp', expectedIssuer, ...(scope ? { scope } : {}) };
    this.sdk =
      config.privateKey !== undefined
        ? new PrivateKeyJwtProvider({ ...common, privateKey: expandEnv(config.privateKey, { server, field: 'auth.privateKey' }), algorithm: config.algorithm! })
        : new ClientCredentialsProvider({ ...common, clientSecret: expandEnv(config.clientSecret!, { server, field: 'auth.clientSecret' }) });
    return this.sdk;
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'durable-mcp',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: this.options.config.privateKey !== undefined ? 'private_key_jwt' : 'client_secret_basic',
      ...(this.options.config.scopes ? { scope: this.options.config.scopes.join(' ') } : {}),
    };
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    if (!ctx) return undefined;
    checkIssuer(this.options.server, this.options.config, this.secrets, ctx.issuer);
    return this.provider(ctx.issuer).clientInformation();
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    if (!this.sdk) throw new Error('the client-credentials token request comes after the client information');
    return this.sdk.prepareTokenRequest(scope);
  }

  /** `private_key_jwt`: the SDK's signed assertion (undefined for a client secret: `auth()` applies it itself). */
  get addClientAuthentication(): PrivateKeyJwtProvider['addClientAuthentication'] | undefined {
    return this.sdk instanceof PrivateKeyJwtProvider ? this.sdk.addClientAuthentication : undefined;
  }

  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    const t = this.secrets.tokens;
    if (!t || !ctx || !t.issuer) return t;
    return t.issuer === ctx.issuer || t.issuer.replace(/\/$/, '') === ctx.issuer.replace(/\/$/, '') ? t : undefined;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.secrets.tokens = tokens;
    this.secrets.obtainedAt = (this.options.now ?? Date.now)();
  }

  redirectToAuthorization(): void {
    throw new Error(`server "${this.options.server}": a client-credentials login has no authorization URL`);
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error(`server "${this.options.server}": a client-credentials login has no PKCE verifier`);
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') {
      delete this.secrets.tokens;
      delete this.secrets.obtainedAt;
      this.tokensInvalidated = true;
    }
    if (scope === 'all' || scope === 'discovery') delete this.secrets.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.secrets.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.secrets.discovery;
  }
}
