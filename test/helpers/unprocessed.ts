/**
 * A worker that ignores updates, as one whose SDK knows none does: Temporal then rejects the update on its behalf as
 * `UnprocessedUpdate` (the workflow never saw it). Seen in CI right after a worker's SIGKILL and restart (issue 44); the
 * tests make it happen on purpose, with their own worker stopped.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

/**
 * Take workflow tasks from `taskQueue` until one carries a message (an update), and complete it with nothing: no command,
 * the update neither accepted nor rejected (only `workflowId`'s tasks, when given). Returns how many messages that task carried.
 */
export async function ignoreTheNextUpdate(client: Client, taskQueue: string, workflowId?: string): Promise<number> {
  const namespace = client.options.namespace;
  const identity = 'a worker that ignores updates';
  for (let polls = 1, skipped = 0; ; polls++) {
    if (polls - skipped > 3 || skipped > 10) throw new Error(`no workflow task carried an update in ${polls - 1} polls (${skipped} of other workflows)`);
    // A long poll: Temporal answers within a minute, with a task or empty.
    const task = await client.connection.withDeadline(Date.now() + 70_000, () =>
      client.workflowService.pollWorkflowTaskQueue({
        namespace,
        taskQueue: { name: taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        identity,
      }),
    );
    if (!task.taskToken?.length) continue;
    // Another workflow's task (`workflowId` given) is left alone: it times out and goes to the next worker, unchanged.
    if (workflowId !== undefined && task.workflowExecution?.workflowId !== workflowId) {
      skipped++;
      continue;
    }
    await client.workflowService.respondWorkflowTaskCompleted({ namespace, taskToken: task.taskToken, identity, commands: [] });
    if (task.messages?.length) return task.messages.length;
  }
}
