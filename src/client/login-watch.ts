/**
 * The login watch of `DurableMcpClient.listTools` (servers behind OAuth): while a listing waits for its server's
 * login, each login request the login makes is told once to the caller's `onLoginRequest`, with the login's status.
 */
import type { Client } from '@temporalio/client';
import type { Request } from '../contract/index.js';
import type { LoginStatus } from '../contract/login.js';
import type { Duration } from '../workflows/duration.js';
import { loginStatusQuery, pendingQuery } from '../workflows/messages.js';

/** Options of `listTools`. */
export interface ListToolsOptions {
  workflowId?: string;
  taskQueue?: string;
  /** A server behind OAuth that signs in per call: whose login the listing uses. */
  principal?: string;
  /** A server behind OAuth: how long the sign-in the listing asks for waits for a person (a Duration; default 24 h). */
  expiresIn?: Duration;
  /**
   * A server behind OAuth that needs a sign-in: told of each login request its login makes while the listing waits
   * (the listing then returns once someone signed in, or fails with `AuthorizationRequired` when the sign-in expires).
   */
  onLoginRequest?: (pending: LoginWait) => void;
}

/** A sign-in a listing waits for: the login's `authorization` request (open its `url`) and the login's status. */
export interface LoginWait {
  loginWorkflowId: string;
  request: Request;
  status: LoginStatus;
}

/**
 * Watch a login (servers behind OAuth) while a listing waits: each login request it makes is told once, with the
 * login's status (what a person does: open `request.url`, or answer it in the inbox). Polls its status query; a login
 * that does not exist (yet), or a server not behind OAuth, tells nothing.
 */
export function watchLogin(client: Client, loginId: string, onLoginRequest: NonNullable<ListToolsOptions['onLoginRequest']>, pollMs = 500): { stop(): void } {
  const handle = client.workflow.getHandle(loginId);
  const told = new Set<string>();
  let stopped = false;
  let wake: (() => void) | undefined;
  void (async () => {
    while (!stopped) {
      try {
        const status = await handle.query(loginStatusQuery);
        if (status.state === 'pending' && status.requestId && !told.has(status.requestId)) {
          const request = (await handle.query(pendingQuery)).find((r) => r.id === status.requestId);
          if (request && !stopped) {
            told.add(request.id);
            onLoginRequest({ loginWorkflowId: loginId, request, status });
          }
        }
      } catch {
        // no login yet (the listing has not asked for it), or its worker is busy: look again
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, pollMs).unref();
      });
    }
  })();
  // Stopping does not wait for a query in flight (a busy worker may hold it): what it finds is no longer told.
  return {
    stop() {
      stopped = true;
      wake?.();
    },
  };
}
