import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Answer, Request } from '../../src/contract/index.js';
import { isMcpSourceError, McpSession, McpSource, parseMcpConfig, type ElicitationHandler } from '../../src/mcp/index.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { childProcesses, events, isAlive, stdioFixture, waitUntil } from '../helpers/mcp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-source-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let logCounter = 0;
const newLog = (): string => join(dir, `log-${++logCounter}.jsonl`);

function lastOf<T>(list: T[], what: string): T {
  assert.ok(list.length > 0, `no ${what}`);
  return list[list.length - 1];
}

for (const transport of ['stdio', 'streamable-http'] as const) {
  describe(`elicitation through waitFor over ${transport}`, () => {
    const logPath = newLog();
    let http: HttpFixture | undefined;
    let src: McpSource;
    const seen: Request[] = [];
    let respond: (req: Request) => Answer = (req) => ({ id: req.id, ok: false });

    before(async () => {
      let server: Record<string, unknown>;
      if (transport === 'stdio') {
        server = stdioFixture(logPath);
      } else {
        http = await startHttpFixture({ env: { FIXTURE_LOG: logPath } });
        server = { url: http.url };
      }
      src = await McpSource.load({ mcpServers: { fx: server } }, async (req) => {
        seen.push(req);
        return respond(req);
      });
      assert.deepEqual(src.status, { fx: 'connected' }, JSON.stringify(src.errors));
    });
    after(async () => {
      await src?.close();
      await http?.close();
    });

    /** Call `tool` answering with `answer`; returns the Request waitFor saw, the tool output and what the server received. */
    async function elicit(tool: string, answer: (req: Request) => Answer, args: Record<string, unknown> = {}) {
      const before = seen.length;
      const receivedBefore = events(logPath, 'received', tool).length;
      respond = answer;
      const result = await src.callTool(`fx_${tool}`, args, { timeoutMs: 20_000 });
      assert.equal(seen.length, before + 1, 'waitFor called exactly once');
      const received = events(logPath, 'received', tool);
      assert.equal(received.length, receivedBefore + 1, 'the server received exactly one result');
      const asked = lastOf(events(logPath, 'asked', tool), 'asked event');
      return { request: seen[seen.length - 1], result, received: lastOf(received, 'received event').result, asked: asked.params as Record<string, unknown> };
    }

    it('advertises elicitation (form and url) to the server', () => {
      const init = lastOf(events(logPath, 'initialized'), 'initialized event');
      assert.deepEqual((init.capabilities as { elicitation?: unknown }).elicitation, { form: {}, url: {} });
    });

    it('hands a form elicitation to waitFor as exactly a kind "input" Request with the requested schema', async () => {
      const { request, asked, result, received } = await elicit('ask_form', (req) => ({ id: req.id, ok: true, data: { name: 'Ada', age: 36 } }));
      const schema = asked.requestedSchema as { properties: Record<string, unknown>; required: string[] };
      assert.ok(Object.keys(schema.properties).length >= 10, 'the fixture asked with its full schema');
      assert.deepEqual(schema.required, ['name', 'age']);
      assert.equal(typeof request.id, 'string');
      assert.ok(request.id.length > 0);
      assert.deepEqual(request, { id: request.id, kind: 'input', prompt: 'Tell us about yourself', data: { schema } });
      assert.deepEqual(received, { action: 'accept', content: { name: 'Ada', age: 36 } });
      assert.equal(result.isError, false);
      assert.deepEqual(JSON.parse(result.output), { action: 'accept', content: { name: 'Ada', age: 36 } });
    });

    it('hands a URL elicitation to waitFor as exactly a kind "authorization" Request with the url and no data', async () => {
      const { request, asked, result, received } = await elicit('ask_url', (req) => ({ id: req.id, ok: true }));
      assert.match(String(asked.url), /^https:\/\/example\.test\/auth\?session=/);
      assert.deepEqual(request, { id: request.id, kind: 'authorization', prompt: 'Please sign in', url: asked.url });
      assert.equal('data' in request, false);
      assert.deepEqual(received, { action: 'accept' });
      assert.deepEqual(JSON.parse(result.output), { action: 'accept' });
    });

    it('returns ok:true as accept with the answer data as content', async () => {
      const { request, result, received } = await elicit('ask_name', (req) => ({ id: req.id, ok: true, data: { name: 'Grace' } }));
      assert.deepEqual(request, {
        id: request.id,
        kind: 'input',
        prompt: 'What is your name?',
        data: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      });
      assert.deepEqual(received, { action: 'accept', content: { name: 'Grace' } });
      assert.deepEqual(result, { output: 'hello Grace', isError: false });
    });

    it('returns reason "declined" as decline', async () => {
      const { result, received } = await elicit('ask_name', (req) => ({ id: req.id, ok: false, reason: 'declined' }));
      assert.deepEqual(received, { action: 'decline' });
      assert.deepEqual(result, { output: 'declined', isError: false });
    });

    for (const reason of ['expired', 'cancelled', undefined]) {
      it(`returns ok:false with ${reason ? `reason "${reason}"` : 'no reason'} as cancel`, async () => {
        const { result, received } = await elicit('ask_name', (req) => (reason ? { id: req.id, ok: false, reason } : { id: req.id, ok: false }));
        assert.deepEqual(received, { action: 'cancel' });
        assert.deepEqual(result, { output: 'cancelled', isError: false });
      });
    }

    it('returns a URL-mode decline as decline', async () => {
      const { received } = await elicit('ask_url', (req) => ({ id: req.id, ok: false, reason: 'declined' }));
      assert.deepEqual(received, { action: 'decline' });
    });

    it('gives every elicitation its own request id', () => {
      assert.ok(seen.length >= 7);
      assert.equal(new Set(seen.map((r) => r.id)).size, seen.length);
    });
  });
}

describe('McpSource without a waitFor', () => {
  const logPath = newLog();
  let src: McpSource;
  before(async () => {
    src = await McpSource.load({ mcpServers: { fx: stdioFixture(logPath) } });
    assert.deepEqual(src.status, { fx: 'connected' }, JSON.stringify(src.errors));
  });
  after(() => src?.close());

  it('does not advertise the elicitation capability', () => {
    const init = lastOf(events(logPath, 'initialized'), 'initialized event');
    assert.equal(typeof init.capabilities, 'object');
    assert.equal('elicitation' in (init.capabilities as object), false, JSON.stringify(init.capabilities));
  });

  it('completes a call that does not elicit', async () => {
    assert.deepEqual(await src.callTool('fx_echo', { text: 'hi' }), { output: 'echo: hi', isError: false });
  });

  it('lets a server that wants to elicit fail its own call instead of hanging', async () => {
    const result = await src.callTool('fx_ask_name', {}, { timeoutMs: 10_000 });
    assert.equal(result.isError, true);
    assert.match(result.output, /elicitation failed/);
    assert.equal(events(logPath, 'asked', 'ask_name').length, 1);
    assert.equal(events(logPath, 'received', 'ask_name').length, 0);
  });
});

describe('McpSource with a waitFor that throws', () => {
  it('fails that tool call, not the source', async () => {
    await using src = await McpSource.load({ mcpServers: { fx: stdioFixture(newLog()) } }, () => {
      throw new Error('resolver broke');
    });
    const result = await src.callTool('fx_ask_name', {}, { timeoutMs: 10_000 });
    assert.equal(result.isError, true);
    assert.match(result.output, /elicitation failed.*resolver broke/);
    assert.deepEqual(await src.callTool('fx_echo', { text: 'ok' }), { output: 'echo: ok', isError: false });
  });
});

describe('McpSource over HTTP with the SSE fallback', () => {
  const logPath = newLog();
  let http: HttpFixture;
  let src: McpSource;
  const seen: Request[] = [];
  before(async () => {
    http = await startHttpFixture({ sseOnly: true, env: { FIXTURE_LOG: logPath } });
    src = await McpSource.load({ mcpServers: { legacy: { url: http.url } } }, (req) => {
      seen.push(req);
      return { id: req.id, ok: true, data: { name: 'Linus' } };
    });
  });
  after(async () => {
    await src?.close();
    await http?.close();
  });

  it('connects to an SSE-only server', () => {
    assert.deepEqual(src.status, { legacy: 'connected' }, JSON.stringify(src.errors));
    assert.equal(lastOf(events(logPath, 'initialized'), 'initialized event').transport, 'sse');
  });

  it('calls a tool over SSE', async () => {
    assert.deepEqual(await src.callTool('legacy_echo', { text: 'over sse' }), { output: 'echo: over sse', isError: false });
  });

  it('bridges an elicitation over SSE', async () => {
    assert.deepEqual(await src.callTool('legacy_ask_name', {}, { timeoutMs: 20_000 }), { output: 'hello Linus', isError: false });
    assert.equal(seen.length, 1);
    assert.equal(seen[0].kind, 'input');
    assert.deepEqual(lastOf(events(logPath, 'received', 'ask_name'), 'received event').result, { action: 'accept', content: { name: 'Linus' } });
  });
});

describe('McpSource server status', () => {
  it('isolates disabled, crashing and hanging servers; the others connect', async () => {
    const okLog = newLog();
    const secret = 'sk-secret-do-not-log';
    process.env.DURABLE_MCP_TEST_TOKEN = secret;
    let src: McpSource | undefined;
    try {
      src = await McpSource.load(
        {
          mcpServers: {
            ok: stdioFixture(okLog),
            off: stdioFixture(newLog(), { enabled: false }),
            also_off: stdioFixture(newLog(), { disabled: true }),
            crash: stdioFixture(newLog(), { args: ['--crash-on-start'] }),
            hang: stdioFixture(newLog(), { args: ['--hang-on-start'], timeout: 1000 }),
            badenv: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${DURABLE_MCP_TEST_TOKEN}', 'X-Key': '${DURABLE_MCP_TEST_UNSET}' } },
          },
        },
        (req) => ({ id: req.id, ok: false }),
      );
      assert.deepEqual(src.status, { ok: 'connected', off: 'disabled', also_off: 'disabled', crash: 'failed', hang: 'failed', badenv: 'failed' });
      assert.deepEqual(Object.keys(src.errors).sort(), ['badenv', 'crash', 'hang']);

      assert.match(src.errors.crash, /server "crash"/);
      assert.match(src.errors.hang, /server "hang".*timed out after 1000 ms/);
      assert.match(src.errors.badenv, /server "badenv".*field "headers\.X-Key".*DURABLE_MCP_TEST_UNSET/);
      assert.ok(!src.errors.badenv.includes(secret), 'a header value never appears in an error');

      assert.ok(src.tools.length > 0);
      assert.ok(src.tools.every((t) => t.server === 'ok'));
      assert.deepEqual(await src.callTool('ok_echo', { text: 'still here' }), { output: 'echo: still here', isError: false });
    } finally {
      delete process.env.DURABLE_MCP_TEST_TOKEN;
      await src?.close();
    }
  });

  it('reports why a crashing server failed, with its stderr', async () => {
    await using src = await McpSource.load({ mcpServers: { crash: stdioFixture(newLog(), { args: ['--crash-on-start'] }) } });
    assert.equal(src.status.crash, 'failed');
    assert.ok(src.errors.crash.length > 0);
    assert.match(src.errors.crash, /fatal: crash on start/);
  });

  it('exposes the first of two tools whose sanitized names collide (in config order) and says which one is hidden', async () => {
    await using src = await McpSource.load({ mcpServers: { 'fx.a': stdioFixture(newLog()), fx_a: stdioFixture(newLog()) } });
    const echo = src.tools.filter((t) => t.name === 'fx_a_echo');
    assert.deepEqual(
      echo.map((t) => t.server),
      ['fx.a'],
    );
    assert.ok(
      src.warnings.includes('tool "echo" of server "fx_a" is not exposed: its name "fx_a_echo" is taken by tool "echo" of server "fx.a"'),
      src.warnings.join('\n'),
    );
    assert.equal(src.warnings.length, src.tools.length);
  });

  it('says plainly when a server command does not exist, and marks it as not worth retrying', async () => {
    await using src = await McpSource.load({ mcpServers: { missing: { command: ['/nonexistent/durable-mcp-server'] } } });
    assert.equal(src.status.missing, 'failed');
    assert.match(src.errors.missing, /server "missing": cannot start command "\/nonexistent\/durable-mcp-server" \(not found: ENOENT\)/);
    await assert.rejects(
      McpSession.connect(parseMcpConfig({ mcpServers: { missing: { command: ['/nonexistent/durable-mcp-server'] } } }).servers.missing, { elicitation: false }),
      (err: unknown) => isMcpSourceError(err, 'McpServerUnavailable') && err.permanent,
    );
  });

  it("tells the elicitation handler when the server gives up on its request, also on a session's first request (id 0)", async () => {
    const server = parseMcpConfig({ mcpServers: { fx: stdioFixture(newLog()) } }).servers.fx;
    const session = await McpSession.connect(server, { elicitation: true });
    try {
      for (let i = 0; i < 2; i++) {
        let gaveUp: (reason: unknown) => void;
        const abort = new Promise((resolve) => (gaveUp = resolve));
        const onElicit: ElicitationHandler = (_params, signal) => {
          signal.addEventListener('abort', () => gaveUp(signal.reason), { once: true });
          return abort.then(() => ({ action: 'cancel' as const }));
        };
        // The fixture's ask_name gives up on its elicitation after timeoutMs.
        const result = await session.callTool('ask_name', { timeoutMs: 300 }, { timeoutMs: 10_000, onElicit });
        let timer: NodeJS.Timeout | undefined;
        const told = await Promise.race([abort, new Promise((resolve) => (timer = setTimeout(() => resolve('never told'), 5_000)))]);
        clearTimeout(timer);
        assert.match(String(told), /timed out/i, `request ${i}: the handler's signal says why the server gave up`);
        assert.equal(result.isError, true);
      }
    } finally {
      await session.close();
    }
  });

  it('fails a hanging server within its own timeout', async () => {
    const started = Date.now();
    await using src = await McpSource.load({ mcpServers: { hang: stdioFixture(newLog(), { args: ['--hang-on-start'], timeout: 500 }) } });
    const elapsed = Date.now() - started;
    assert.equal(src.status.hang, 'failed');
    assert.ok(elapsed >= 450, `did not give up early (${elapsed} ms)`);
  });

  it('rejects a bad config before starting anything', async () => {
    const before = childProcesses().length;
    await assert.rejects(McpSource.load({ mcpServers: { ok: stdioFixture(newLog()), bad: { command: 5 } } }), /server "bad": field "command"/);
    assert.equal(childProcesses().length, before);
  });
});

describe('McpSource tools', () => {
  it('exposes only allowlisted tools, named sanitize(server)_sanitize(tool)', async () => {
    await using src = await McpSource.load({
      mcpServers: {
        fx: stdioFixture(newLog(), { tools: ['echo', 'structured', 'not_a_tool'] }),
        'my.fx': stdioFixture(newLog(), { tools: ['echo'] }),
      },
    });
    assert.deepEqual(src.status, { fx: 'connected', 'my.fx': 'connected' });
    const names = src.tools.map((t) => `${t.name}=${t.server}/${t.originalName}`).sort();
    assert.deepEqual(names, ['fx_echo=fx/echo', 'fx_structured=fx/structured', 'my_fx_echo=my.fx/echo']);
    assert.deepEqual(await src.callTool('my_fx_echo', { text: 'x' }), { output: 'echo: x', isError: false });
    await assert.rejects(src.callTool('fx_ask_name', {}), (err: unknown) => {
      assert.ok(isMcpSourceError(err, 'UnknownTool'));
      assert.match(err.message, /unknown tool "fx_ask_name"/);
      return true;
    });
  });

  it('exposes every tool without an allowlist, with its schema', async () => {
    await using src = await McpSource.load({ mcpServers: { fx: stdioFixture(newLog()) } });
    const names = src.tools.map((t) => t.name).sort();
    for (const tool of ['ask_form', 'ask_name', 'ask_url', 'ask_twice', 'counter', 'echo', 'structured', 'fails', 'hang', 'slow']) {
      assert.ok(names.includes(`fx_${tool}`), `fx_${tool} in ${names.join(', ')}`);
    }
    const echo = src.tools.find((t) => t.name === 'fx_echo')!;
    assert.equal(echo.inputSchema.type, 'object');
    assert.ok((echo.inputSchema.properties as Record<string, unknown>).text);
  });
});

describe('McpSource tool calls', () => {
  const logPath = newLog();
  let src: McpSource;
  before(async () => {
    src = await McpSource.load({ mcpServers: { fx: stdioFixture(logPath) } });
    assert.equal(src.status.fx, 'connected', JSON.stringify(src.errors));
  });
  after(() => src?.close());

  it('maps structuredContent to its JSON as output', async () => {
    const result = await src.callTool('fx_structured', {});
    assert.deepEqual(result, { output: JSON.stringify({ answer: 42, items: ['a', 'b'] }), isError: false });
  });

  it('returns the result of a tool whose output does not match its declared outputSchema, as text, and runs it once', async () => {
    const before = events(logPath, 'side_effect', 'unstructured').length;
    assert.deepEqual(await src.callTool('fx_unstructured', {}), { output: 'done', isError: false });
    const after = events(logPath, 'side_effect', 'unstructured').length;
    assert.equal(after - before, 1);
  });

  it('maps an isError result to isError true with the text parts joined by newlines', async () => {
    assert.deepEqual(await src.callTool('fx_fails', {}), { output: 'first part\nsecond part', isError: true });
  });

  it('maps plain text content to output', async () => {
    assert.deepEqual(await src.callTool('fx_echo', { text: 'plain' }), { output: 'echo: plain', isError: false });
  });

  it("honours the caller's AbortSignal: the call rejects and the server sees the cancellation", async () => {
    const controller = new AbortController();
    const call = src.callTool('fx_hang', {}, { timeoutMs: 120_000, signal: controller.signal });
    await waitUntil(() => events(logPath, 'call', 'hang').length === 1, 30_000, 'the hang call to arrive');
    controller.abort(new Error('caller gave up'));
    await assert.rejects(call, /caller gave up/);
    await waitUntil(() => events(logPath, 'aborted', 'hang').length === 1, 30_000, 'the fixture to log "aborted"');
    // The session survives an aborted call.
    assert.deepEqual(await src.callTool('fx_echo', { text: 'after abort' }), { output: 'echo: after abort', isError: false });
  });

  it('honours timeoutMs: the call rejects and the server sees the cancellation', async () => {
    // The rejection names the timeout: the 30 s call was cut short (no wall-clock bound: a busy machine is slow).
    await assert.rejects(src.callTool('fx_slow', { ms: 30_000 }, { timeoutMs: 300 }), /timed out|timeout/i);
    await waitUntil(() => events(logPath, 'aborted', 'slow').length === 1, 30_000, 'the fixture to log "aborted"');
  });

  it('does not cut a call short at a timeoutMs above its duration', async () => {
    assert.deepEqual(await src.callTool('fx_slow', { ms: 200 }, { timeoutMs: 5000 }), { output: 'slept 200', isError: false });
  });
});

describe('McpSource lifecycle', () => {
  it('close() leaves no child process', async () => {
    const before = childProcesses();
    const logA = newLog();
    const logB = newLog();
    const src = await McpSource.load({ mcpServers: { a: stdioFixture(logA), b: stdioFixture(logB) } }, (req) => ({ id: req.id, ok: false }));
    assert.deepEqual(src.status, { a: 'connected', b: 'connected' });
    assert.equal(childProcesses().length, before.length + 2);
    await src.callTool('a_echo', { text: 'x' });
    await src.close();
    assert.deepEqual(childProcesses(), before);
    for (const log of [logA, logB]) {
      const pid = Number(lastOf(events(log, 'initialized'), 'initialized event').pid);
      assert.equal(isAlive(pid), false, `server process ${pid} ended`);
    }
  });

  it('close() ends a server that is in the middle of a call', async () => {
    const before = childProcesses();
    const log = newLog();
    const src = await McpSource.load({ mcpServers: { fx: stdioFixture(log) } });
    const call = src.callTool('fx_hang', {}, { timeoutMs: 60_000 });
    await waitUntil(() => events(log, 'call', 'hang').length === 1, 30_000, 'the hang call to arrive');
    await src.close();
    await assert.rejects(call);
    assert.deepEqual(childProcesses(), before);
  });

  it('works with await using: leaving the block closes every server', async () => {
    const before = childProcesses();
    const log = newLog();
    {
      await using src = await McpSource.load({ mcpServers: { fx: stdioFixture(log) } }, (req) => ({ id: req.id, ok: true, data: { name: 'Ada' } }));
      assert.equal(src.status.fx, 'connected');
      assert.deepEqual(await src.callTool('fx_ask_name', {}), { output: 'hello Ada', isError: false });
      assert.equal(childProcesses().length, before.length + 1);
    }
    assert.deepEqual(childProcesses(), before);
    const pid = Number(lastOf(events(log, 'initialized'), 'initialized event').pid);
    assert.equal(isAlive(pid), false);
  });

  it('rejects a tool call after close() with a clear error', async () => {
    const src = await McpSource.load({ mcpServers: { fx: stdioFixture(newLog()) } });
    await src.close();
    await assert.rejects(src.callTool('fx_echo', { text: 'x' }), (err: unknown) => {
      assert.ok(isMcpSourceError(err, 'ToolCallFailed'), String(err));
      assert.match(err.message, /server "fx".*closed/);
      return true;
    });
  });

  it('close() is idempotent', async () => {
    const src = await McpSource.load({ mcpServers: { fx: stdioFixture(newLog()) } });
    await src.close();
    await src.close();
    await src[Symbol.asyncDispose]();
  });

  it('close() ends an HTTP session without touching the server process', async () => {
    const log = newLog();
    const http = await startHttpFixture({ env: { FIXTURE_LOG: log } });
    try {
      const src = await McpSource.load({ mcpServers: { remote: { url: http.url } } });
      assert.equal(src.status.remote, 'connected', JSON.stringify(src.errors));
      await src.close();
      assert.equal(isAlive(http.pid), true);
    } finally {
      await http.close();
    }
  });
});
