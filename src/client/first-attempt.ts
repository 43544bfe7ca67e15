/** What the first attempt of a started tool call came to (`DurableMcpClient.firstAttempt`), from the workflow's own state. */
import type { Client } from '@temporalio/client';
import type { ToolResult } from '../contract/index.js';
import { awaitingInputKey } from '../workflows/visibility.js';
import { workerPolls } from './workers.js';

/** How long `firstAttempt` waits by default for a started call's first attempt to come to something. */
export const FIRST_ATTEMPT_WAIT_MS = 2_000;

/**
 * What the first attempt of a started tool call came to (`DurableMcpClient.firstAttempt`): the call finished, waits for a
 * person, failed once and is retried, is still running when the wait ended, or no worker polls its task queue.
 * A call that failed for good is not listed: `firstAttempt` throws its ToolCallFailure.
 */
export type FirstAttempt =
  | { state: 'completed'; result: ToolResult }
  | { state: 'awaiting-input' }
  | { state: 'retrying'; attempt: number; failure: string }
  | { state: 'running' }
  | { state: 'no-worker'; taskQueue: string };

/**
 * Describe the workflow every `pollMs` (default 100 ms) until its first attempt shows how it went or `timeoutMs`
 * (default FIRST_ATTEMPT_WAIT_MS) has passed; `result` is the call's result once it closed (it throws when it failed).
 */
export async function firstAttemptOf(
  client: Client,
  workflowId: string,
  result: () => Promise<ToolResult>,
  options: { timeoutMs?: number; pollMs?: number } = {},
): Promise<FirstAttempt> {
  const deadline = Date.now() + (options.timeoutMs ?? FIRST_ATTEMPT_WAIT_MS);
  const handle = client.workflow.getHandle(workflowId);
  let first = true;
  for (;;) {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING') return { state: 'completed', result: await result() };
    if (first && d.taskQueue && (await workerPolls(client, d.taskQueue)) === false) return { state: 'no-worker', taskQueue: d.taskQueue };
    first = false;
    if (d.typedSearchAttributes.get(awaitingInputKey) === true) return { state: 'awaiting-input' };
    const retried = (d.raw.pendingActivities ?? []).find((a) => (a.attempt ?? 1) > 1 && a.lastFailure);
    if (retried) return { state: 'retrying', attempt: retried.attempt ?? 2, failure: retried.lastFailure?.message ?? '(no message)' };
    if (Date.now() >= deadline) return { state: 'running' };
    await new Promise((r) => setTimeout(r, Math.min(options.pollMs ?? 100, Math.max(0, deadline - Date.now()))));
  }
}
