/**
 * Reminders and escalation (docs/people.md) on the time-skipping server: a request addressed to Ana with
 * `remindAfter: 1h`, `escalateAfter: 2h` and `escalateTo: {roles: ["lead"]}`: the webhook receives the request, then
 * the reminder, then the escalation (with a link for the role lead); the request's context lists the lead role; the
 * lead answers through that link. The options are checked (errors name the field).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingDetailsQuery } from '../../src/workflows/messages.js';
import { toolCallInputProblem } from '../../src/workflows/input.js';
import { startInbox } from '../../src/inbox/index.js';
import { notAddressedTo } from '../../src/inbox/answer.js';
import { eventually, testEnvironment } from '../helpers/temporal.js';
import { freePort } from '../helpers/ports.js';
import { receiver } from '../helpers/webhook.js';
import { waitForPending } from '../helpers/watch.js';
import { recordHistory } from '../helpers/history.js';

const KEY = 'follow-up-link-key-for-tests-0123456789abcdef';
const HOUR = 60 * 60 * 1000;

describe('reminders and escalation', () => {
  it('the options are checked, naming the field', () => {
    const call = { server: 'fx', tool: 'ask_name' };
    assert.equal(toolCallInputProblem({ ...call, elicitation: { remindAfter: '1h', escalateAfter: '2h', escalateTo: { roles: ['lead'] } } }), undefined);
    assert.match(
      toolCallInputProblem({ ...call, elicitation: { remindAfter: 'soon' } }) ?? '',
      /^mcpToolCall: field "elicitation.remindAfter" must be a Temporal Duration/,
    );
    assert.equal(
      toolCallInputProblem({ ...call, elicitation: { escalateTo: { roles: [''] } } }),
      'mcpToolCall: field "elicitation.escalateTo.roles[0]" must be a non-empty string of at most 200 characters without control characters, got ""',
    );
  });

  it('time-skipping: the webhook gets the request, the reminder, then the escalation; the escalated role answers by its link', async () => {
    const hook = await receiver();
    // The shared channel's bodies (the lead's own channel, `?to=lead`, gets its link).
    const bodies = () => hook.received.filter((r) => r.path === '/hook').map((r) => r.body as { text: string });
    const leads = () => hook.received.filter((r) => r.path === '/hook?to=lead').map((r) => r.body as { text: string });
    const hookUrl = hook.url;
    const inboxPort = await freePort();
    const inboxUrl = `http://127.0.0.1:${inboxPort}/`;
    const t = await testEnvironment({
      timeSkipping: true,
      name: 'follow-ups',
      configFields: { notify: { url: hookUrl, format: 'slack', inboxUrl, linkKey: KEY, assigneeWebhooks: { 'role:lead': { url: `${hookUrl}?to=lead` } } } },
    });
    const inbox = await startInbox({ client: t.client, host: '127.0.0.1', port: inboxPort, token: 'never-shown-token-of-tests', answerLinkKey: KEY });
    try {
      const handle = await t.client.workflow.start(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `follow-ups-${Date.now()}`,
        args: [
          {
            server: 'fx',
            tool: 'ask_name',
            assignees: { users: ['ana@example.com'] },
            elicitation: { holdFor: 200, expiresIn: '6h', remindAfter: '1h', escalateAfter: '2h', escalateTo: { roles: ['lead'] } },
          },
        ],
      });
      await waitForPending(handle);
      const heads = () => bodies().map((b) => b.text.split('\n')[0]!.replace(/ by .*/, ''));
      await eventually(() => (heads().length >= 1 ? true : undefined), 'the first notification', 60_000, 100);
      await t.env.sleep(HOUR + 60_000);
      await eventually(() => (heads().length >= 2 ? true : undefined), 'the reminder', 60_000, 100);
      let [pending] = await handle.query(pendingDetailsQuery);
      assert.equal(pending!.context.reminded, true);
      assert.deepEqual(pending!.context.assignees, { users: ['ana@example.com'] }, 'a reminder does not widen');
      await t.env.sleep(HOUR);
      await eventually(() => (heads().length >= 3 ? true : undefined), 'the escalation', 60_000, 100);
      assert.deepEqual(heads(), [
        '*durable-mcp: input requested*',
        '*durable-mcp: reminder: input still requested*',
        '*durable-mcp: escalated: input still requested*',
      ]);
      [pending] = await handle.query(pendingDetailsQuery);
      assert.deepEqual(pending!.context.assignees, { users: ['ana@example.com'], roles: ['lead'] });
      assert.deepEqual(pending!.context.escalated, { roles: ['lead'] });
      assert.match(bodies()[2]!.text, /escalated to role lead/);
      // A signed-in lead may answer it now; someone else may not.
      assert.equal(notAddressedTo({ subject: 'lee', email: 'lee@example.com', roles: ['lead'], source: 'oidc' }, pending!), undefined);
      assert.match(notAddressedTo({ subject: 'eve', source: 'oidc' }, pending!) ?? '', /is not addressed to you/);
      // The lead answers by the escalation's link for the role.
      assert.doesNotMatch(bodies()[2]!.text, /\/a\//, 'the shared channel carries no answer link');
      const leadBody = await eventually(() => leads().find((b) => b.text.startsWith('*durable-mcp: escalated')), "the lead's own notification", 60_000, 100);
      const lead = [...leadBody.text.matchAll(/<(http[^|>]+)\|answer as role:lead>/g)][0]?.[1];
      assert.ok(lead, `a link for the role lead in ${leadBody.text}`);
      const res = await fetch(lead, {
        method: 'POST',
        headers: { origin: inboxUrl.slice(0, -1), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'Lee', __action: 'accept' }),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await handle.result(), { output: 'hello Lee', isError: false });
      await recordHistory(handle, 'follow-ups', t.env.address);
    } finally {
      await inbox.close();
      await t.teardown();
      await hook.close();
    }
  });

  it("time-skipping: the approval policy's reminder and escalation (not the call's)", async () => {
    const hook = await receiver();
    const bodies = () => hook.received.map((r) => r.body as { type: string; context: { escalated?: unknown; approval?: unknown } });
    const t = await testEnvironment({
      timeSkipping: true,
      name: 'follow-ups-policy',
      fx: { approval: { tools: ['transfer'], remindAfter: '1h', escalateAfter: '2h', escalateTo: { users: ['boss@example.com'] } } },
      configFields: { notify: { url: hook.url } },
    });
    try {
      const handle = await t.client.workflow.start(mcpToolCall, {
        taskQueue: t.taskQueue,
        workflowId: `follow-ups-policy-${Date.now()}`,
        args: [{ server: 'fx', tool: 'transfer', arguments: { to: 'bob', amount: 3 }, elicitation: { holdFor: 200 } }],
      });
      await waitForPending(handle);
      await eventually(() => (bodies().length >= 1 ? true : undefined), 'the first notification', 60_000, 100);
      await t.env.sleep(2 * HOUR + 60_000);
      await eventually(() => (bodies().length >= 3 ? true : undefined), 'the reminder and the escalation', 60_000, 100);
      assert.deepEqual(
        bodies().map((b) => b.type),
        ['durable-mcp.request.pending', 'durable-mcp.request.reminder', 'durable-mcp.request.escalated'],
      );
      const [pending] = await handle.query(pendingDetailsQuery);
      assert.deepEqual(pending!.context.assignees, { users: ['boss@example.com'] });
      await handle.cancel();
    } finally {
      await t.teardown();
      await hook.close();
    }
  });
});
