/**
 * The inbox's Client ID Metadata Document (servers behind OAuth; docs/oauth.md): with an https public base URL the
 * inbox serves, at `oauth/client-metadata.json` under it, the document whose URL is durable-mcp's client id at
 * authorization servers that support such documents (`client_id_metadata_document_supported`), so no registration is
 * needed there. Its one redirect URI is the inbox's `/oauth/callback`. Public, like the callback: an authorization
 * server fetches it without the inbox's token. Another base (none, or http) serves none, and says why.
 */
import type { Hono } from 'hono';
import {
  CLIENT_METADATA_PATH,
  clientMetadataDocument,
  INBOX_PUBLIC_URL_ENV,
  inboxOAuthUrls,
  inboxPublicUrlProblem,
  type InboxOAuthUrls,
} from '../contract/client-metadata.js';
import { InboxError, InboxErrorCodes } from './errors.js';

/** How long an authorization server may cache the document (it changes only with the base URL, which changes the client id too). */
const CACHE_SECONDS = 3600;

/**
 * What the inbox publishes: from `publicUrl` (the option, e.g. `--public-url`), else $DURABLE_MCP_INBOX_PUBLIC_URL;
 * undefined without either. A bad value throws, naming where it came from.
 */
export function inboxPublication(publicUrl: string | undefined, field = 'publicUrl', env: NodeJS.ProcessEnv = process.env): InboxOAuthUrls | undefined {
  const fromEnv = publicUrl === undefined ? env[INBOX_PUBLIC_URL_ENV] || undefined : undefined;
  const value = publicUrl ?? fromEnv;
  if (value === undefined) return undefined;
  const problem = inboxPublicUrlProblem(value);
  if (problem) throw new InboxError(InboxErrorCodes.InvalidPublicUrl, `${fromEnv !== undefined ? INBOX_PUBLIC_URL_ENV : field} ${problem}`);
  return inboxOAuthUrls(value);
}

export function installClientMetadata(app: Hono, published: InboxOAuthUrls | undefined): void {
  const metadataUrl = published?.clientMetadataUrl;
  app.get(CLIENT_METADATA_PATH, (c) => {
    if (!metadataUrl) {
      const why = published?.noDocument ?? `it has no https public URL (${INBOX_PUBLIC_URL_ENV}, or durable-mcp inbox --public-url)`;
      return c.text(`This inbox serves no Client ID Metadata Document: ${why.replace(/^the inbox's /, 'its ')}.`, 404);
    }
    c.header('Cache-Control', `public, max-age=${CACHE_SECONDS}`);
    return c.json(clientMetadataDocument({ clientMetadataUrl: metadataUrl, callback: published!.callback }));
  });
}
