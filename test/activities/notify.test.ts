import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notificationBody } from '../../src/activities/notify.js';
import { McpConfigError, parseMcpConfig } from '../../src/mcp/config.js';

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
        (err: unknown) => err instanceof McpConfigError && pattern.test(err.message),
      );
    bad('https://x', /"notify" must be an object/);
    bad({}, /field "notify\.url"/);
    bad({ url: 'ftp://x.test/' }, /field "notify\.url" must be an http or https URL/);
    bad({ url: 'https://x.test/', format: 'xml' }, /field "notify\.format" must be "json" or "slack", got "xml"/);
    bad({ url: 'https://x.test/', hedaers: {} }, /unknown key\(s\) "hedaers"/);
    assert.throws(
      () => parseMcpConfig({ mcpServers: {}, notify: { url: 'https://x.test/', headers: { a: 42 } } }),
      (err: unknown) => err instanceof McpConfigError && /notify\.headers/.test(err.message) && !/42/.test(err.message),
    );
  });

  it('sends JSON with the workflow id, the Request, its context and the inbox link', () => {
    assert.deepEqual(notificationBody(input, { url: 'https://x.test/', inboxUrl: 'http://127.0.0.1:8787/' }), {
      type: 'durable-mcp.request.pending',
      workflowId: 'wf-1',
      request: input.request,
      context: input.context,
      inboxUrl: 'http://127.0.0.1:8787/',
    });
  });

  it("sends Slack text in which the server's words cannot mention, link or format", () => {
    const body = notificationBody(input, { url: 'https://x.test/', format: 'slack' }) as { text: string };
    assert.match(body.text, /Who &lt;@U123&gt; &amp; &lt;!channel&gt;\?/);
    assert.doesNotMatch(body.text, /<@U123>|<!channel>/);
    assert.match(body.text, /durable-mcp pending wf-1/);
  });
});
