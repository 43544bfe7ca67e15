/**
 * What the activities get from the worker (`ActivityDeps`), and what every activity derives from it:
 * the Temporal client that reaches the activity's workflow, the worker's features the workflow learns with an outcome, and the
 * heartbeat interval.
 */
import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ANSWER_LINK_KEY_ENV } from '../codec/answer-link.js';
import {
  expandEnv,
  type CredentialSeal,
  type HttpServerConfig,
  type LoginTarget,
  type NotifyConfig,
  type ServerConfig,
  type SessionPool,
  type TokenCache,
} from '../mcp/index.js';
import { failure } from './failures.js';
import type { RegisteredSearchAttributes, WorkerFeatures } from '../contract/activities.js';

export interface ActivityDeps {
  pool: SessionPool;
  /** The Temporal client the activity uses to reach its workflow (default: the one of the activity's own context). */
  client?: () => Client;
  /** Aborted when the worker starts to shut down: waiting calls are released at once, not after the grace time. */
  shutdown?: AbortSignal;
  /** Which of durable-mcp's search attributes the namespace has (default `none`): the workflows keep those current. */
  searchAttributes?: RegisteredSearchAttributes;
  /** The webhook told of new pending requests (the `notify` key of the worker's config). */
  notify?: NotifyConfig;
  /** Servers behind OAuth: the seal of the login's secrets, the access tokens of this worker, the redirect URI (./oauth.ts). */
  logins?: LoginDeps;
}

/** What the worker gives the OAuth activities: the seal of the secrets, its token cache, where browsers come back. */
export interface LoginDeps {
  seal: CredentialSeal;
  tokens: TokenCache;
  /** The redirect URI of a server's logins: its `auth.redirectUrl`, else the worker's (the inbox's `/oauth/callback`). */
  redirectUrl: (server: HttpServerConfig) => string;
  /** The inbox's Client ID Metadata Document URL for a server whose `auth` names no `clientMetadataUrl` (undefined: none). */
  clientMetadataUrl?: (server: HttpServerConfig) => string | undefined;
  fetchFn?: LoginTarget['fetchFn'];
  /** Issues the signed `state` of a sign-in (the MAC the inbox checks before Temporal; CredentialSeal.stateMac). */
  issueState?: (loginId: string) => string;
}

/**
 * The client of *this* activity's context: an elicitation arrives in a callback of the session's stdio
 * stream, whose async context is that of the activity that spawned the server (getClient() there would
 * answer for another, possibly finished, activity).
 */
export function clientOf(deps: ActivityDeps, ctx: Context): Client {
  return deps.client ? deps.client() : ctx.client;
}

/** What the workflow learns of this worker with a call's outcome: which search attributes are registered; a webhook is configured. */
export function workerFeatures(deps: ActivityDeps): WorkerFeatures {
  const found = deps.searchAttributes ?? 'none';
  return {
    ...(found !== 'none' ? { searchAttribute: true } : {}),
    ...(found === 'listing' ? { listing: true } : {}),
    ...(deps.notify ? { notify: true } : {}),
  };
}

/** How often an activity heartbeats: a third of its heartbeat timeout (default 30 s), from 200 ms to 5 s. */
export function heartbeatEvery(ctx: Context): number {
  return Math.max(200, Math.min(5_000, (ctx.info.heartbeatTimeoutMs ?? 30_000) / 3));
}

/** The config of server `name` in the worker's pool; an unknown, disabled or invalid server is the call's failure. */
export function serverConfigOf(deps: ActivityDeps, name: string): ServerConfig {
  try {
    return deps.pool.serverConfig(name);
  } catch (err) {
    failure(err, name);
  }
}

/** The shortest answer-link key either side takes (the inbox refuses a shorter `answerLinkKey` too). */
export const MIN_ANSWER_LINK_KEY_LENGTH = 32;

/** The worker's answer-link key as configured: a usable `key`, `none`, or why the configured one is not usable. */
export type AnswerLinkKey =
  | { status: 'key'; key: string }
  | { status: 'none' }
  /** A `${VAR}` of `notify.linkKey` that this worker's environment does not set (another worker may). */
  | { status: 'unset'; error: Error }
  /** Shorter than MIN_ANSWER_LINK_KEY_LENGTH; `field` names where it came from. */
  | { status: 'short'; field: string };

/**
 * The key the worker shares with the inbox for answer links and answer proofs (docs/people.md): the config's
 * `notify.linkKey` with its `${VAR}`s expanded, else, with `orEnv`, $DURABLE_MCP_ANSWER_LINK_KEY (the variable the
 * inbox reads; an empty one is none). The notification signs links only with `notify.linkKey` and fails its attempt on
 * a bad one; the proof check also takes the variable, and proves nothing without a usable key.
 */
export function answerLinkKey(notify: Pick<NotifyConfig, 'linkKey'> | undefined, { orEnv = false, env = process.env } = {}): AnswerLinkKey {
  let key: string | undefined;
  let field = 'notify.linkKey';
  if (notify?.linkKey !== undefined) {
    try {
      key = expandEnv(notify.linkKey, { server: 'notify', field: 'linkKey' }, env);
    } catch (err) {
      return { status: 'unset', error: err as Error };
    }
  } else if (orEnv) {
    key = env[ANSWER_LINK_KEY_ENV] || undefined;
    field = `$${ANSWER_LINK_KEY_ENV}`;
  }
  if (key === undefined) return { status: 'none' };
  return key.length >= MIN_ANSWER_LINK_KEY_LENGTH ? { status: 'key', key } : { status: 'short', field };
}
