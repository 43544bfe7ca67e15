import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { answerLinkKey, type ActivityDeps } from '../../src/activities/deps.js';
import { notificationBody, notifyPendingActivity } from '../../src/activities/notify.js';
import { openAnswerLink } from '../../src/codec/answer-link.js';
import { parseMcpConfig } from '../../src/mcp/config.js';
import { isMcpSourceError } from '../../src/mcp/errors.js';

const input = {
  workflowId: 'wf-1',
  request: {
    id: 'c1.1.abc',
    kind: 'input' as const,
    prompt: 'Who <@U123> & <!channel>?',
    data: { schema: { type: 'object', properties: {} } },
    expiresAt: '2026-01-01T00:00:00.000Z',
  },
  context: { callId: 'c1', server: 'fx', tool: 'ask' },
};

describe('notify: the webhook config and what it is sent', () => {
  it('reads `notify` from the worker config', () => {
    const config = parseMcpConfig({
      mcpServers: {},
      notify: { url: 'https://hooks.example.test/x', headers: { Authorization: 'Bearer ${TOKEN}' }, format: 'slack', inboxUrl: 'http://127.0.0.1:8787/' },
    });
    assert.deepEqual(config.notify, {
      url: 'https://hooks.example.test/x',
      headers: { Authorization: 'Bearer ${TOKEN}' },
      format: 'slack',
      inboxUrl: 'http://127.0.0.1:8787/',
    });
    assert.equal(parseMcpConfig({ mcpServers: {} }).notify, undefined);
  });

  it('rejects a bad notify config naming the field, without showing header values', () => {
    const bad = (notify: unknown, pattern: RegExp) =>
      assert.throws(
        () => parseMcpConfig({ mcpServers: {}, notify }),
        (err: unknown) => isMcpSourceError(err, 'McpConfigInvalid') && pattern.test(err.message),
      );
    bad('https://x', /"notify" must be an object/);
    bad({}, /field "notify\.url"/);
    bad({ url: 'ftp://x.test/' }, /field "notify\.url" must be an http or https URL/);
    bad({ url: 'https://x.test/', format: 'xml' }, /field "notify\.format" must be "json" or "slack", got "xml"/);
    bad({ url: 'https://x.test/', hedaers: {} }, /unknown key\(s\) "hedaers"/);
    assert.throws(
      () => parseMcpConfig({ mcpServers: {}, notify: { url: 'https://x.test/', headers: { a: 42 } } }),
      (err: unknown) => isMcpSourceError(err, 'McpConfigInvalid') && /notify\.headers/.test(err.message) && !/42/.test(err.message),
    );
  });

  it('sends JSON with the workflow id, the request id, kind and expiry, its context and the inbox link: no prompt, schema or link by default', () => {
    const body = notificationBody(input, { url: 'https://x.test/', inboxUrl: 'http://127.0.0.1:8787/' });
    assert.deepEqual(body, {
      type: 'durable-mcp.request.pending',
      workflowId: 'wf-1',
      request: { id: 'c1.1.abc', kind: 'input', expiresAt: '2026-01-01T00:00:00.000Z' },
      context: input.context,
      inboxUrl: 'http://127.0.0.1:8787/',
    });
    const url = { ...input, request: { id: 'c1.2.def', kind: 'authorization', prompt: 'Sign in', url: 'https://idp.example.test/authorize?state=s3cr3t' } };
    const text = JSON.stringify(notificationBody(url, { url: 'https://x.test/' }));
    assert.doesNotMatch(text, /Sign in|s3cr3t|idp\.example/, 'a URL-mode request sends neither its message nor its link');
    assert.deepEqual((notificationBody(url, { url: 'https://x.test/', includePrompt: false }) as { request: unknown }).request, {
      id: 'c1.2.def',
      kind: 'authorization',
    });
  });

  it('sends the whole Request (prompt, schema, link) with `includePrompt: true`', () => {
    assert.deepEqual(notificationBody(input, { url: 'https://x.test/', inboxUrl: 'http://127.0.0.1:8787/', includePrompt: true }), {
      type: 'durable-mcp.request.pending',
      workflowId: 'wf-1',
      request: input.request,
      context: input.context,
      inboxUrl: 'http://127.0.0.1:8787/',
    });
  });

  it("sends Slack text without the prompt by default, and with `includePrompt` in which the server's words cannot mention, link or format", () => {
    const plain = (notificationBody(input, { url: 'https://x.test/', format: 'slack' }) as { text: string }).text;
    assert.doesNotMatch(plain, /Who|U123|channel/, 'no prompt by default');
    assert.match(plain, /fx\/ask in workflow `wf-1`/);
    assert.match(plain, /request `c1\.1\.abc` \(input\)/);
    assert.match(plain, /expires 2026-01-01T00:00:00\.000Z/);
    assert.match(plain, /durable-mcp pending wf-1/);
    const body = notificationBody(input, { url: 'https://x.test/', format: 'slack', includePrompt: true }) as { text: string };
    assert.match(body.text, /Who &lt;@U123&gt; &amp; &lt;!channel&gt;\?/);
    assert.doesNotMatch(body.text, /<@U123>|<!channel>/);
    assert.match(body.text, /durable-mcp pending wf-1/);
  });

  it('names who asked through Nexus: in the JSON body (its context) and escaped in the Slack text', () => {
    const caller = { namespace: 'caller-py', workflowId: 'order <!channel>' };
    const withCaller = { ...input, context: { ...input.context, caller } };
    assert.deepEqual((notificationBody(withCaller, { url: 'https://x.test/' }) as { context: unknown }).context, withCaller.context);
    const text = (notificationBody(withCaller, { url: 'https://x.test/', format: 'slack' }) as { text: string }).text;
    assert.match(text, /asked by caller-py\/order &lt;!channel&gt; through Nexus/);
    assert.doesNotMatch(text, /<!channel>/);
  });
});

describe('notify: answer links and follow-ups (docs/people.md)', () => {
  const key = 'a-link-key-of-at-least-32-characters!!';
  const addressed = { ...input, runId: 'run-1', context: { ...input.context, assignees: { users: ['ana@example.com'], roles: ['ops'] } } };

  it("JSON: each assignee's channel gets its own signed link only, expiring with the request; the shared one none; none without the key or the inbox URL", () => {
    const opts = { url: 'https://hooks.example.test/x', inboxUrl: 'https://inbox.example/' };
    assert.equal('links' in notificationBody(addressed, opts, key), false, 'the shared webhook carries no answer link');
    for (const to of ['ana@example.com', 'role:ops']) {
      const body = notificationBody(addressed, opts, key, to) as { links: Array<{ to: string; url: string }> };
      assert.deepEqual(
        body.links.map((l) => l.to),
        [to],
        `${to}'s channel: their link only`,
      );
      const opened = openAnswerLink(key, body.links[0]!.url.slice('https://inbox.example/a/'.length), Date.parse('2025-12-31T00:00:00Z'));
      assert.deepEqual(opened, { workflowId: 'wf-1', run: 'run-1', requestId: 'c1.1.abc', to, exp: Date.parse('2026-01-01T00:00:00.000Z') });
    }
    assert.equal('links' in notificationBody(addressed, { url: 'https://hooks.example.test/x' }, key, 'ana@example.com'), false);
    assert.equal('links' in notificationBody(addressed, { url: 'https://hooks.example.test/x', inboxUrl: 'https://inbox.example/' }), false);
  });

  it('no links for a request that needs several people (N of M): whoever reads the webhook could answer as each of them', () => {
    const nOfM = { ...addressed, context: { ...addressed.context, approvals: { required: 2, accepted: [] } } };
    const opts = { url: 'https://hooks.example.test/x', inboxUrl: 'https://inbox.example/' };
    assert.equal('links' in notificationBody(nOfM, opts, key), false);
    const { text } = notificationBody(nOfM, { ...opts, format: 'slack' }, key) as { text: string };
    assert.doesNotMatch(text, /\/a\//);
  });

  it('Slack: the follow-up says what it is; an escalation names who was added; labels are escaped', () => {
    const escalated = { ...addressed, event: 'escalation' as const, context: { ...addressed.context, escalated: { users: ['<@U1>'] } } };
    const { text } = notificationBody(
      escalated,
      { url: 'https://hooks.example.test/x', format: 'slack', inboxUrl: 'https://inbox.example/' },
      key,
      'ana@example.com',
    ) as {
      text: string;
    };
    assert.match(text, /^\*durable-mcp: escalated: input still requested\* by fx\/ask/);
    assert.match(text, /escalated to &lt;@U1&gt;/);
    assert.match(text, /<https:\/\/inbox\.example\/a\/[\w-]+\.[\w-]+\|answer as ana@example\.com>/);
    const json = notificationBody({ ...addressed, event: 'reminder' }, { url: 'https://hooks.example.test/x' }) as { type: string };
    assert.equal(json.type, 'durable-mcp.request.reminder');
  });
});

describe('notify: the answer-link key (one resolution with the proof check, src/activities/deps.ts)', () => {
  const key = 'a-link-key-of-at-least-32-characters!!';

  it('is notify.linkKey, expanded; $DURABLE_MCP_ANSWER_LINK_KEY only for the proof check; a short or unset one says why', () => {
    assert.deepEqual(answerLinkKey({ linkKey: '${K}' }, { env: { K: key } }), { status: 'key', key });
    assert.deepEqual(answerLinkKey({}, { env: { DURABLE_MCP_ANSWER_LINK_KEY: key } }), { status: 'none' }, 'links are signed with notify.linkKey only');
    assert.deepEqual(answerLinkKey(undefined, { orEnv: true, env: { DURABLE_MCP_ANSWER_LINK_KEY: key } }), { status: 'key', key });
    assert.deepEqual(answerLinkKey(undefined, { orEnv: true, env: { DURABLE_MCP_ANSWER_LINK_KEY: '' } }), { status: 'none' });
    assert.deepEqual(answerLinkKey({ linkKey: 'short' }, { orEnv: true, env: { DURABLE_MCP_ANSWER_LINK_KEY: key } }), {
      status: 'short',
      field: 'notify.linkKey',
    });
    assert.deepEqual(answerLinkKey({}, { orEnv: true, env: { DURABLE_MCP_ANSWER_LINK_KEY: 'short' } }), {
      status: 'short',
      field: '$DURABLE_MCP_ANSWER_LINK_KEY',
    });
    const unset = answerLinkKey({ linkKey: '${NOT_SET_HERE}' }, { env: {} });
    assert.equal(unset.status, 'unset');
    assert.match(unset.status === 'unset' ? unset.error.message : '', /field "linkKey" refers to \$\{NOT_SET_HERE\}/);
  });

  it('notifyPending fails the attempt, retryably, on a short or unset linkKey and posts nothing; without one it posts without links', async () => {
    const bodies: unknown[] = [];
    const hook = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        bodies.push(JSON.parse(text));
        res.end('ok');
      });
    });
    await new Promise<void>((done) => hook.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const addressed = { ...input, runId: 'run-1', context: { ...input.context, assignees: { users: ['ana@example.com'] } } };
    const run = (linkKey?: string) =>
      new MockActivityEnvironment().run(
        notifyPendingActivity({ notify: { url, inboxUrl: 'https://inbox.example/', ...(linkKey !== undefined ? { linkKey } : {}) } } as ActivityDeps),
        addressed,
      );
    const retryable = (type: string, message: RegExp) => (err: unknown) =>
      err instanceof ApplicationFailure && !err.nonRetryable && err.type === type && message.test(err.message) && !err.message.includes('too-short');
    try {
      await assert.rejects(run('too-short'), retryable('NotifyFailed', /^field "notify\.linkKey" must be at least 32 characters/));
      await assert.rejects(run('${NOTIFY_TEST_UNSET_KEY}'), retryable('McpSourceError', /\$\{NOTIFY_TEST_UNSET_KEY\}, which is not set/));
      assert.deepEqual(bodies, [], 'nothing was posted');
      assert.deepEqual(await run(), { sent: true, status: 200 });
      assert.equal(bodies.length, 1);
      assert.equal('links' in (bodies[0] as object), false);
    } finally {
      hook.close();
    }
  });
});
