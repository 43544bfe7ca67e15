/**
 * Sign-out that holds on every replica of an inbox (docs/people.md): a session cookie is a sealed, self-contained
 * credential, so deleting it in one browser leaves a copy working until it expires. `POST /auth/logout` therefore
 * revokes the session's id where every inbox process pointed at the namespace looks: Temporal. A revoked session is
 * one workflow, `durable-mcp-inbox-sign-out-<hash of the session id>`, started on a task queue no worker polls (it never
 * runs: no worker needed) with an execution timeout at the session's own expiry, so the server closes it when the
 * cookie would have died anyway. A replica asks whether that workflow exists (DescribeWorkflowExecution), caches the
 * answer briefly, and refuses the cookie if it does. The replica that signed out knows at once.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';

/** The task queue of the sign-out records: nothing polls it, nothing runs. */
export const SIGN_OUT_TASK_QUEUE = 'durable-mcp-inbox-sign-outs';
/** The workflow type of a sign-out record (never registered by any worker). */
export const SIGN_OUT_WORKFLOW_TYPE = 'durableMcpInboxSignOut';
/** How long a replica trusts its last answer about a session (ms): a copied cookie works at most this long elsewhere. */
export const SIGN_OUT_CHECK_CACHE_MS = 2_000;

/** The workflow id recording that session `sid` signed out (a hash: the id names no session). */
export function signOutWorkflowId(sid: string): string {
  return `durable-mcp-inbox-sign-out-${createHash('sha256').update(sid).digest('hex').slice(0, 40)}`;
}

/** The sign-outs an inbox records and checks, through its Temporal client. */
export class SignOuts {
  private readonly mine = new Map<string, number>();
  private readonly checked = new Map<string, { revoked: boolean; at: number }>();
  constructor(
    private readonly client: Client,
    private readonly cacheMs = SIGN_OUT_CHECK_CACHE_MS,
  ) {}

  /** Revoke session `sid` (valid until `expiresAt`, ms since the epoch) on every replica. */
  async revoke(sid: string, expiresAt: number): Promise<void> {
    this.forget();
    this.mine.set(sid, expiresAt);
    try {
      await this.client.workflow.start(SIGN_OUT_WORKFLOW_TYPE, {
        taskQueue: SIGN_OUT_TASK_QUEUE,
        workflowId: signOutWorkflowId(sid),
        workflowExecutionTimeout: Math.max(1_000, expiresAt - Date.now()),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  /**
   * Whether session `sid` signed out, on this replica or another. A Temporal that cannot answer counts as revoked
   * (fails closed: a person signs in again rather than a revoked cookie getting in).
   */
  async isRevoked(sid: string): Promise<boolean> {
    if (this.mine.has(sid)) return true;
    const now = Date.now();
    const known = this.checked.get(sid);
    if (known && now - known.at < this.cacheMs) return known.revoked;
    let revoked: boolean;
    try {
      await this.client.workflow.getHandle(signOutWorkflowId(sid)).describe();
      revoked = true;
    } catch (err) {
      revoked = !(err instanceof WorkflowNotFoundError);
    }
    if (this.checked.size > 10_000) this.checked.clear();
    this.checked.set(sid, { revoked, at: now });
    return revoked;
  }

  private forget(): void {
    const now = Date.now();
    for (const [sid, exp] of this.mine) if (exp <= now) this.mine.delete(sid);
  }
}
