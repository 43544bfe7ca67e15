/**
 * What the activities get from the worker (`ActivityDeps`), and the two things every activity derives from it:
 * the Temporal client that reaches the activity's workflow, and the flags the workflow learns with an outcome.
 */
import type { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { NotifyConfig, SessionPool } from '../mcp/index.js';
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
