import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { readFixtureLog, receivedAnswers } from '../fixtures/paths.js';
import { receiver } from '../helpers/webhook.js';
import { spawnNode } from '../../scripts/processes.js';
import { eventually, fixtureConfig, tempDir, testEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

/** The activity events of a workflow's history, by activity type. */
async function activityEvents(handle: WorkflowHandle, type: string): Promise<{ scheduled: number; completed: number; attempts: number[] }> {
  const history = await handle.fetchHistory();
  const ids = new Set<string>();
  let completed = 0;
  const attempts: number[] = [];
  for (const e of history.events ?? []) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === type) ids.add(String(e.eventId));
    const started = e.activityTaskStartedEventAttributes;
    if (started && ids.has(String(started.scheduledEventId))) attempts.push(started.attempt ?? 0);
    const done = e.activityTaskCompletedEventAttributes;
    if (done && ids.has(String(done.scheduledEventId))) completed++;
  }
  return { scheduled: ids.size, completed, attempts };
}

describe("notifications of pending requests (the worker config's webhook)", () => {
  it('sends exactly one notification per request, with the workflow id, the request id and kind, its context and the inbox link (no prompt by default), also across a worker SIGKILL', async () => {
    const hook = await receiver();
    // Worker processes only: the environment starts none.
    await using t = await testEnvironment({ name: 'notify-kill', startWorker: false });
    const { env, taskQueue, logPath } = t;
    const dir = tempDir();
    const configPath = join(dir, 'mcp.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        ...fixtureConfig(logPath),
        notify: { url: hook.url, headers: { 'X-Hook-Secret': '${HOOK_SECRET}' }, inboxUrl: 'http://127.0.0.1:8787/' },
      }),
    );
    const workerEnv = { TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_TASK_QUEUE: taskQueue, HOOK_SECRET: 's3cret' };
    const first = spawnNode([workerEntry, '--mcp-config', configPath], workerEnv);
    let second: ReturnType<typeof spawnNode> | undefined;
    try {
      await first.waitFor(/durable-mcp worker: Temporal/);
      const workflowId = `notify-kill-${Date.now()}`;
      const handle = await env.client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId,
        args: [{ server: 'fx', tool: 'ask_twice', elicitation: { holdFor: 10 * 60 * 1000 }, heartbeatTimeout: 2000 }],
      });
      const [r1] = await waitForPending(handle);
      await eventually(async () => (await activityEvents(handle, 'notifyPending')).completed === 1, 'the first notification to be sent and recorded');
      assert.equal(hook.received.length, 1);
      assert.deepEqual(hook.received[0].body, {
        type: 'durable-mcp.request.pending',
        workflowId,
        request: { id: r1.id, kind: r1.kind, ...(r1.expiresAt !== undefined ? { expiresAt: r1.expiresAt } : {}) },
        context: { callId: 'c1', server: 'fx', tool: 'ask_twice' },
        inboxUrl: 'http://127.0.0.1:8787/',
      });
      assert.ok(r1.prompt.length > 0 && !JSON.stringify(hook.received[0].body).includes(r1.prompt), 'the prompt is not sent unless includePrompt is set');
      assert.equal(hook.received[0].headers['x-hook-secret'], 's3cret', "header ${VAR}s are expanded from the worker's environment");
      assert.equal(hook.received[0].headers['idempotency-key'], `${workflowId}/${r1.id}`);

      // The worker dies while the call waits inline; a new worker's retried attempt asks the same request again.
      await first.kill('SIGKILL');
      second = spawnNode([workerEntry, '--mcp-config', configPath], workerEnv);
      await second.waitFor(/durable-mcp worker: Temporal/);
      await eventually(() => readFixtureLog(logPath).filter((e) => e.event === 'asked').length >= 2, 'the retried attempt to ask the first question again');
      await handle.signal(answerSignal, { id: r1.id, ok: true, data: { first: 'Ada' } });
      const [r2] = await eventually(async () => {
        const p = await waitForPending(handle);
        return p[0]?.id !== r1.id ? p : undefined;
      }, 'the second question');
      assert.notEqual(r2.id, r1.id);
      await handle.signal(answerSignal, { id: r2.id, ok: true, data: { last: 'Lovelace' } });
      assert.deepEqual(await handle.result(), { output: 'Ada Lovelace', isError: false });

      const events = await activityEvents(handle, 'notifyPending');
      assert.equal(events.scheduled, 2, 'one notification scheduled per request');
      assert.deepEqual(
        hook.received.map((r) => r.body.request.id),
        [r1.id, r2.id],
        'the receiver got each request once',
      );
      assert.deepEqual(hook.received[1].body.context, { callId: 'c1', server: 'fx', tool: 'ask_twice' });
    } finally {
      await first.kill('SIGKILL');
      await second?.kill('SIGTERM');
      await hook.close();
    }
  });

  it('an approval is notified with the tool and its annotations, never an argument value (not even with includePrompt)', async () => {
    const hook = await receiver();
    try {
      await using t = await testEnvironment({ name: 'notify-approval', configFields: { notify: { url: hook.url, includePrompt: true } } });
      const handle = await t.env.client.workflow.start(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `notify-approval-${Date.now()}`,
        args: [{ server: 'fx', tool: 'transfer', arguments: { to: 'secret-recipient', amount: 777 }, approval: 'always' }],
      });
      const [request] = await waitForPending(handle);
      await eventually(async () => (await activityEvents(handle, 'notifyPending')).completed === 1, 'the notification to be sent');
      const body = hook.received[0].body;
      assert.equal(body.request.id, request.id);
      assert.equal(body.request.prompt, request.prompt, 'the prompt (which names the server and the tool) with includePrompt');
      assert.equal(body.request.data, undefined, "the approval's form (its defaults are the arguments) is left out");
      assert.equal(body.context.approval.title, 'Transfer money');
      const text = JSON.stringify(body);
      assert.ok(!text.includes('secret-recipient') && !text.includes('777'), text);
      await handle.signal(answerSignal, { id: request.id, ok: false, reason: 'declined' });
      assert.equal((await handle.result()).metadata?.approval, 'declined');
    } finally {
      await hook.close();
    }
  });

  it('a receiver that fails at first gets the notification after a retry; with `includePrompt` it carries the whole Request', async () => {
    const hook = await receiver((n) => (n === 1 ? 503 : 200));
    try {
      await using t = await testEnvironment({ name: 'notify-retry', configFields: { notify: { url: hook.url, includePrompt: true } } });
      const { env, taskQueue } = t;
      const handle = await env.client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: `notify-retry-${Date.now()}`,
        args: [{ server: 'fx', tool: 'ask_name' }],
      });
      const [request] = await waitForPending(handle);
      await eventually(async () => (await activityEvents(handle, 'notifyPending')).completed === 1, 'the notification to succeed');
      assert.deepEqual(
        hook.received.map((r) => [r.status, r.body.request.id]),
        [
          [503, request.id],
          [200, request.id],
        ],
      );
      assert.deepEqual(hook.received[1].body.request, request, 'includePrompt: the Request as pending shows it (prompt and schema)');
      assert.deepEqual((await activityEvents(handle, 'notifyPending')).attempts, [2], 'recorded as one activity that succeeded on its second attempt');
      await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
      assert.equal((await handle.result()).output, 'hello Ada');
    } finally {
      await hook.close();
    }
  });

  it('a receiver that is down does not delay the tool call: it completes while the notification is still being retried', async () => {
    const down = await receiver();
    await down.close(); // nothing listens on this port any more
    await using t = await testEnvironment({ name: 'notify-down', configFields: { notify: { url: down.url } } });
    const { env, taskQueue, logPath } = t;
    const handle = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `notify-down-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name' }],
    });
    const [request] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Ada' } });
    assert.deepEqual(await handle.result(), { output: 'hello Ada', isError: false });
    const events = await activityEvents(handle, 'notifyPending');
    assert.equal(events.scheduled, 1, 'the notification was scheduled');
    assert.equal(events.completed, 0, 'and never succeeded, yet the call completed');
    assert.deepEqual(receivedAnswers(logPath), [{ action: 'accept', content: { name: 'Ada' } }]);
  });
});
