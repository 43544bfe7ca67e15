/**
 * A login's credentials are bound to one authorization server (docs/security.md, docs/oauth.md "The issuer"): the configured
 * `auth.issuer`, else, for a configured client (`auth.clientId`), the issuer it was first used with (recorded with its
 * client information, or with the tokens). The providers ask before `auth()` may send anything of the client to an
 * issuer: a server that names another authorization server fails the login, naming both, and nothing is sent.
 */
import type { OAuthConfig } from '../config.js';
import { McpSourceError, McpSourceErrorCodes } from '../errors.js';
import type { LoginSecrets } from './secrets.js';

/** The same issuer (RFC 8414 compares exactly; a trailing slash is forgiven, as the SDK forgives it). */
export function sameIssuer(a: string, b: string): boolean {
  return a === b || a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

/** The issuer a login's credentials belong to, if one is bound. */
export function boundIssuer(config: OAuthConfig, secrets: LoginSecrets): string | undefined {
  if (config.issuer !== undefined) return config.issuer;
  if (config.clientId === undefined) return undefined;
  const recorded = Object.entries(secrets.clients ?? {}).find(([, c]) => c.client_id === config.clientId)?.[0];
  return recorded ?? secrets.tokens?.issuer;
}

/** Throws AuthorizationFailed (permanent) when `issuer` is not the one the login's credentials are bound to. */
export function checkIssuer(server: string, config: OAuthConfig, secrets: LoginSecrets, issuer: string): void {
  const bound = boundIssuer(config, secrets);
  if (bound === undefined || sameIssuer(bound, issuer)) return;
  const why = config.issuer !== undefined ? '"auth.issuer"' : 'the issuer its configured client was first used with';
  throw new McpSourceError(
    McpSourceErrorCodes.AuthorizationFailed,
    `server "${server}": OAuth: the server names the authorization server ${issuer}, but its credentials belong to ${bound} (${why}): ` +
      `nothing of the client is sent to ${issuer}`,
    { permanent: true },
  );
}
