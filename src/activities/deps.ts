/**
 * What the activities get from the worker (`ActivityDeps`), and what every activity derives from it:
 * the Temporal client that reaches the activity's workflow, the flags the workflow learns with an outcome, and the
 * heartbeat interval.
 */
import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { NotifyConfig, ServerConfig, SessionPool } from '../mcp/index.js';
import { failure } from './failures.js';
import type { WorkerFlags } from './types.js';

export interface ActivityDeps {
  pool: SessionPool;
  /** The Temporal client the activity uses to reach its workflow (default: the one of the activity's own context). */
  client?: () => Client;
  /** Aborted when the worker starts to shut down: waiting calls are released at once, not after the grace time. */
  shutdown?: AbortSignal;
  /** Whether the namespace has the DurableMcpAwaitingInput search attribute (the workflow then keeps it current). */
  searchAttribute?: boolean;
  /** Whether the listing's search attributes (servers, kinds, next expiry, resolved at) are registered too. */
  listing?: boolean;
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

/** What the workflow learns of this worker with a call's outcome: the search attribute is registered; a webhook is configured. */
export function workerFlags(deps: ActivityDeps): WorkerFlags {
  return {
    ...(deps.searchAttribute ? { searchAttribute: true } : {}),
    ...(deps.searchAttribute && deps.listing ? { listing: true } : {}),
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
