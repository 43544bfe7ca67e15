/**
 * What the 2026-07-28 protocol requires of the client, through the real worker (issue #21), against a server written
 * by hand (test/fixtures/raw-server.ts) so that it can send what an SDK server never does: a result without
 * `resultType` is complete; a malformed result fails the call once, at once, as a typed ProtocolViolation; a tool's
 * `x-mcp-header` arguments travel as `Mcp-Param-*` headers (encoded as the spec says) beside `Mcp-Method`/`Mcp-Name`;
 * a tool with an invalid declaration is never called; a round retried on a fresh session has a JSON-RPC id of its own.
 * The worker closes a session as soon as it is released (`idleTimeoutMs: 0`), so each round runs on a new one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { rawServerPath, readFixtureLog } from '../fixtures/paths.js';
import { fixtureBothWays } from '../helpers/file-server.js';
import { suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const { extraServers, logs } = fixtureBothWays(rawServerPath, { stdio: 'raw', http: 'rawhttp' });
const { stdio: stdioLog, http: httpLog } = logs;

describe('the 2026-07-28 requirements on results and headers, through the worker', () => {
  const suite = suiteEnvironment({ name: 'protocol', extraServers, pool: { idleTimeoutMs: 0 } });
  const call = (server: string, tool: string, args: Record<string, unknown> = {}) =>
    suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `${server}-${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server, tool, arguments: args }],
    });
  const calls = (log: string, tool: string) => readFixtureLog(log).filter((e) => e.event === 'call' && e.tool === tool);

  for (const server of ['raw', 'rawhttp']) {
    it(`${server}: a tools/call result without resultType is complete`, async () => {
      const handle = await call(server, 'no_result_type');
      assert.deepEqual(await handle.result(), { output: 'complete without resultType', isError: false });
      assert.equal(calls(server === 'raw' ? stdioLog : httpLog, 'no_result_type').length, 1);
    });

    it(`${server}: a malformed result fails the call once, at once, as ProtocolViolation naming the server and what was wrong`, async () => {
      const handle = await call(server, 'malformed');
      await assert.rejects(handle.result(), (err: any) => {
        const app = err.cause?.cause;
        assert.equal(app?.type, 'ProtocolViolation');
        assert.equal(app?.nonRetryable, true);
        assert.match(
          app?.message,
          new RegExp(`server "${server}": tool "malformed" answered with a result MCP does not allow \\(field "content"\\): .*content.*expected array`),
        );
        return true;
      });
      const { events } = await handle.fetchHistory();
      const attempts = events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
      assert.deepEqual(attempts, [1], 'one attempt, no retry');
      assert.equal(calls(server === 'raw' ? stdioLog : httpLog, 'malformed').length, 1, 'the server saw the call once');
    });
  }

  it('x-mcp-header arguments travel as Mcp-Param-* headers, encoded, beside Mcp-Method and Mcp-Name; null and undeclared ones do not', async () => {
    const args = { region: 'Zürich ', priority: 42, verbose: false, nested: { zone: 'eu-1' }, query: 'SELECT 1' };
    const handle = await call('rawhttp', 'headers', args);
    assert.equal((await handle.result()).output, 'called headers');
    const [seen] = calls(httpLog, 'headers');
    const headers = seen.headers as Record<string, string>;
    assert.equal(headers['mcp-method'], 'tools/call');
    assert.equal(headers['mcp-name'], 'headers');
    assert.equal(headers['mcp-param-region'], `=?base64?${Buffer.from('Zürich ', 'utf8').toString('base64')}?=`, 'non-ASCII and edge space: base64');
    assert.equal(headers['mcp-param-priority'], '42');
    assert.equal(headers['mcp-param-verbose'], 'false');
    assert.equal(headers['mcp-param-zone'], 'eu-1', 'a nested property reached through properties');
    assert.equal(headers['mcp-param-query'], undefined, 'no declaration, no header');

    const nulls = await call('rawhttp', 'headers', { region: 'us-west1', priority: null });
    await nulls.result();
    const second = calls(httpLog, 'headers')[1].headers as Record<string, string>;
    assert.equal(second['mcp-param-region'], 'us-west1', 'plain ASCII goes as it is');
    assert.equal(second['mcp-param-priority'], undefined, 'a null argument sends no header');
  });

  for (const server of ['raw', 'rawhttp']) {
    it(`${server}: a tool with an invalid x-mcp-header is never called: ProtocolViolation saying why`, async () => {
      const handle = await call(server, 'number_header', { score: 1.5 });
      await assert.rejects(handle.result(), (err: any) => {
        const app = err.cause?.cause;
        assert.equal(app?.type, 'ProtocolViolation');
        assert.match(app?.message, /tool "number_header" has an invalid x-mcp-header declaration \(property "score": .*not "number"\)/);
        return true;
      });
      assert.equal(calls(server === 'raw' ? stdioLog : httpLog, 'number_header').length, 0);
    });
  }

  for (const server of ['raw', 'rawhttp']) {
    it(`${server}: a round retried on a fresh session after the release has a JSON-RPC id of its own; no id is ever sent twice`, async () => {
      const log = server === 'raw' ? stdioLog : httpLog;
      const handle = await call(server, 'confirm');
      const [request] = await waitForPending(handle);
      await handle.signal(answerSignal, { id: request.id, ok: true, data: { ok: true } });
      assert.deepEqual(await handle.result(), { output: 'confirmed: accept', isError: false });
      const [first, retry] = calls(log, 'confirm');
      assert.equal(retry?.requestState, 'raw-confirm-state', 'the second round echoes the state');
      const entries = readFixtureLog(log);
      const listedBetween = entries.slice(entries.indexOf(first) + 1, entries.indexOf(retry)).filter((e) => e.method === 'tools/list');
      assert.ok(listedBetween.length >= 1, 'the retry ran on a new session (which listed the tools first)');
      if (server === 'raw') assert.notEqual(retry.pid, first.pid, 'over stdio, a new session is a new server process');
      assert.notEqual(retry.id, first.id, 'the retry has a JSON-RPC id of its own');
      const ids = entries.filter((e) => e.event === 'request').map((e) => e.id);
      assert.equal(new Set(ids).size, ids.length, `every request id the server saw is distinct: ${JSON.stringify(ids)}`);
    });
  }
});
