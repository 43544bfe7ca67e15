// The inbox: a Temporal client with a web page where a person answers pending requests.
export { createInboxApp, startInbox, DEFAULT_INBOX_HOST, DEFAULT_INBOX_PORT, INBOX_TOKEN_ENV, type InboxHandle, type InboxOptions } from './server.js';
export { isLoopback } from '../codec/access.js';
export { installOAuthCallback, OAUTH_CALLBACK_PATH, type CodeSealer } from './oauth-callback.js';
export { inboxPublication, installClientMetadata } from './client-metadata.js';
export { InboxError, InboxErrorCodes, isInboxError, type InboxErrorCode } from './errors.js';
export { listInbox, type InboxRow, type UnreachableRow } from './list.js';
export { schemaFields, postedToContent, rejectionByField, type Field, type Posted } from './form.js';
export { clickableUrl, ACTION_FIELD } from './page.js';
