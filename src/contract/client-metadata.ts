/**
 * durable-mcp as an OAuth client of the authorization servers in front of MCP servers (docs/oauth.md), as the inbox
 * publishes it under its public base URL: the callback every login's browser comes back to, and the Client ID Metadata
 * Document (draft-ietf-oauth-client-id-metadata-document; MCP authorization's client registration), whose URL is the
 * client id. The inbox serves what the worker's logins name, from the same base URL: pure, so both planes share it.
 */
import { isLoopbackHost } from './admit.js';

/** The inbox's sign-in callback (its path on the inbox; under a public base URL, relative to it). */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';
/** The inbox's Client ID Metadata Document (its path on the inbox; served under an https public base URL only). */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';
/** The `client_name` authorization servers show on their consent pages. */
export const OAUTH_CLIENT_NAME = 'durable-mcp';
/** The environment variable of the inbox's public base URL (read by the inbox and by workers). */
export const INBOX_PUBLIC_URL_ENV = 'DURABLE_MCP_INBOX_PUBLIC_URL';

/** What the inbox publishes under a public base URL. */
export interface InboxOAuthUrls {
  /** The base URL, ending with "/". */
  base: string;
  /** The redirect URI of the logins whose browser comes back to this inbox. */
  callback: string;
  /** The document's URL, the client id (an https base only). */
  clientMetadataUrl?: string;
  /** Why there is no document at this base (an http base that is not loopback: a person should know). */
  noDocument?: string;
}

/** Why `value` is no public base URL of an inbox (undefined: it is one): an absolute http(s) URL without user info, query or fragment. */
export function inboxPublicUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return `must be the inbox's public base URL (https://inbox.example.com/), got ${JSON.stringify(value)}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an absolute URL (https://inbox.example.com/), got ${JSON.stringify(value)}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an https (or http) URL, got ${JSON.stringify(value)}`;
  if (url.username || url.password) return `must not carry user info, got ${JSON.stringify(value)}`;
  if (url.search || url.hash || value.includes('#')) return `must have no query or fragment (it is a base URL), got ${JSON.stringify(value)}`;
  // Checked on the text as given: the URL parser resolves them away.
  if (
    value
      .split(/[?#]/)[0]!
      .split('/')
      .some((s) => s === '.' || s === '..' || /^%2e(%2e)?$/i.test(s))
  ) {
    return `must have no "." or ".." path segments, got ${JSON.stringify(value)}`;
  }
  return undefined;
}

/**
 * The callback and the document under a public base URL (checked first with inboxPublicUrlProblem). The document needs
 * https (authorization servers fetch it over https only, and the client id must be an https URL with a path).
 */
export function inboxOAuthUrls(publicUrl: string): InboxOAuthUrls {
  const url = new URL(publicUrl);
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  const base = url.href;
  const callback = new URL(OAUTH_CALLBACK_PATH.slice(1), base).href;
  if (url.protocol === 'https:') return { base, callback, clientMetadataUrl: new URL(CLIENT_METADATA_PATH.slice(1), base).href };
  if (isLoopbackHost(url.hostname)) return { base, callback };
  return {
    base,
    callback,
    noDocument:
      `the inbox's public URL ${base} is not https, so it serves no Client ID Metadata Document (authorization servers fetch one over` +
      ' https only): logins use dynamic client registration, or the clientId or clientMetadataUrl in a server\'s "auth"',
  };
}

/**
 * The Client ID Metadata Document at `clientMetadataUrl`: the client id is its own URL, a public client (no secret:
 * `token_endpoint_auth_method` "none", PKCE), whose one redirect URI is the inbox's callback.
 */
export function clientMetadataDocument(urls: { clientMetadataUrl: string; callback: string }): Record<string, unknown> {
  return {
    client_id: urls.clientMetadataUrl,
    client_name: OAUTH_CLIENT_NAME,
    redirect_uris: [urls.callback],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
