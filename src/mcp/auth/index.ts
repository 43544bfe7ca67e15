/**
 * MCP authorization (OAuth; docs/oauth.md) in the MCP plane: the worker's `OAuthClientProvider` over a login's secrets
 * (provider.ts; a machine's client-credentials login: machine.ts; what a login keeps: secrets.ts), the two steps of a login, each one `auth()` of the
 * SDK (flow.ts), the seal of the secrets in the login workflow's state (seal.ts), and a worker's access tokens and the
 * transports' bearer `AuthProvider` (credentials.ts).
 */
export { LoginProvider, newState, type ProviderOptions } from './provider.js';
export type { LoginSecrets } from './secrets.js';
export { MachineLoginProvider, type MachineProviderOptions } from './machine.js';
export {
  authorizeLogin,
  exchangeLoginCode,
  flowError,
  tokenInfo,
  type AuthorizeResult,
  type ExchangeResult,
  type LoginTarget,
  type TokenInfo,
} from './flow.js';
export { addressProblem, isLoopbackHost, OutboundGuard, OutboundRefused, resourceMetadataProblem, type OutboundOptions } from './outbound.js';
export { boundIssuer, checkIssuer, sameIssuer } from './issuer.js';
export { CredentialSeal, SEAL_KEY_LABEL, type SealKey } from './seal.js';
export {
  EXPIRY_SKEW_MS,
  isLoginRequired,
  loginRequired,
  loginAuthProvider,
  loginRequiredOf,
  TokenCache,
  type AccessToken,
  type LoginReason,
  type LoginRequired,
} from './credentials.js';
