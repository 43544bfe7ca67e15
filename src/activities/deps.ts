/**
 * What the activities get from the worker (`ActivityDeps`), and what every activity derives from it:
 * the Temporal client that reaches the activity's workflow, the worker's features the workflow learns with an outcome, and the
 * heartbeat interval.
 */
import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { NotifyConfig, ServerConfig, SessionPool } from '../mcp/index.js';
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
  logins?: import('./oauth.js').LoginDeps;
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
