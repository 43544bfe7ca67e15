/**
 * The inbox's "at work" page (`/working`, docs/inbox.md): an MCP task that works without a question shows there with its
 * status and statusMessage (docs/tasks.md), escaped and stripped of control and bidirectional-override characters; the
 * page is linked from the inbox for its operators and refused to a person named by a proxy's header. Real parts: a dev
 * server, a worker, the project's task server over HTTP (test/fixtures/task-server.ts), the inbox over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { shownText } from '../../src/inbox/working.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { taskServerForFile } from '../helpers/task-server.js';
import { closeAll, eventually, suiteEnvironment } from '../helpers/temporal.js';

const { extraServers } = taskServerForFile();

describe('the inbox shows the tool calls at work', () => {
  const suite = suiteEnvironment({ name: 'inbox-working', searchAttributes: true, extraServers });
  let inbox: InboxHandle;
  let proxied: InboxHandle;
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, queryTimeoutMs: 3000 });
    proxied = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, userHeader: 'X-Forwarded-User' });
  });
  after(() => closeAll(inbox, proxied));

  it("a task working without a question: its status and the server's statusMessage, escaped, with no control characters", async () => {
    const hostile = '<script>alert(1)</script>\u001b[31mred\u202eevil';
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `working-${Date.now()}`,
      args: [{ server: 'tasks', tool: 'slow', arguments: { workMs: 120_000, message: hostile } }],
    });
    try {
      let last = '';
      const body = await eventually(async () => {
        const text = (last = await (await fetch(`${inbox.url}working`)).text());
        return text.includes(`data-workflow-id="${handle.workflowId}"`) && text.includes('working: ') ? text : undefined;
      }, 'the task on the page with its progress').catch((err: Error) => {
        throw new Error(`${err.message}; the page was: ${last.slice(-1500)}`);
      });
      const article = body.slice(body.indexOf(`data-workflow-id="${handle.workflowId}"`));
      assert.match(article, /<span class="server">tasks<\/span> \/ <span class="toolname">slow<\/span>/);
      assert.ok(article.includes('working: &lt;script&gt;alert(1)&lt;/script&gt; [31mred evil'), 'the message, escaped and cleaned');
      assert.ok(!body.includes('<script>alert'), 'no markup of the server');
      assert.ok(!body.includes('\u001b') && !body.includes('\u202e'), 'no control or bidirectional-override character');
      assert.match(await (await fetch(`${inbox.url}`)).text(), /<a href="\/working">at work<\/a>/, "linked from the operators' inbox");
      const refused = await fetch(`${proxied.url}working`, { headers: { 'X-Forwarded-User': 'ada@example.com' } });
      assert.equal(refused.status, 403, 'a person is not shown calls addressed to nobody');
      assert.doesNotMatch(await (await fetch(`${proxied.url}`, { headers: { 'X-Forwarded-User': 'ada@example.com' } })).text(), /href="\/working"/);
    } finally {
      await handle.cancel();
    }
  });

  it('a blank proxy header is no person and not the operator, with or without the token (issue 40)', async () => {
    const token = 'working-token-0123456789abcdef0123456789';
    const withToken = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, userHeader: 'X-Forwarded-User', token });
    try {
      const auth = { authorization: `Bearer ${token}` };
      assert.equal((await fetch(`${withToken.url}working`, { headers: auth })).status, 200, 'the token alone: the operator');
      for (const blank of ['', '   ', '\t']) {
        for (const path of ['working', 'api/requests', '']) {
          const res = await fetch(`${withToken.url}${path}`, { headers: { ...auth, 'X-Forwarded-User': blank } });
          assert.equal(res.status, 403, `${JSON.stringify(blank)} on /${path}`);
          assert.match(await res.text(), /X-Forwarded-User names no person/);
        }
      }
      const answered = await fetch(`${withToken.url}api/answer`, {
        method: 'POST',
        headers: { ...auth, 'X-Forwarded-User': ' ', 'content-type': 'application/json' },
        body: JSON.stringify({ workflowId: 'none', answer: { id: 'x', ok: true } }),
      });
      assert.equal(answered.status, 403, 'no answer is taken from a blank header');
      assert.equal((await fetch(`${proxied.url}working`, { headers: { 'X-Forwarded-User': '' } })).status, 403, 'without the token too');
    } finally {
      await withToken.close();
    }
  });

  it('cuts a long message and removes control characters (pure)', () => {
    assert.equal(shownText('a\u0000b\u0007c\u2066d'), 'a b c d');
    assert.equal(shownText('x'.repeat(400)).length, 300);
    assert.ok(shownText('x'.repeat(400)).endsWith('…'));
  });
});
