/**
 * What a login keeps: the tokens and client information by issuer, the discovery state, the authorization request in
 * flight. An activity of the login workflow opens them from the workflow's state (sealed: seal.ts), hands them to the
 * SDK's `auth()` through a provider (provider.ts, machine.ts) and seals them again.
 */
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

/** What a login keeps (sealed in the login workflow's state; src/mcp/auth/seal.ts). */
export interface LoginSecrets {
  discovery?: OAuthDiscoveryState;
  /** Client information by issuer (a pre-registered client, a Client ID Metadata Document URL, or a dynamic registration). */
  clients?: Record<string, StoredOAuthClientInformation>;
  /** The token set, stamped with its issuer. */
  tokens?: StoredOAuthTokens;
  /** When the tokens were obtained (ms since the epoch): `expires_in` counts from here. */
  obtainedAt?: number;
  /** The PKCE verifier of the authorization request in flight. */
  codeVerifier?: string;
  /** The `state` of the authorization request in flight. */
  state?: string;
}
