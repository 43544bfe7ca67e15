import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { FailureTypes, isToolCallFailure, type McpToolInfo } from '../../src/client/index.js';
import { causeChain } from '../../src/contract/causes.js';
import { fixtureServerPath, modernServerPath, startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { ZOO_TOOL_JSON } from '../fixtures/tool-listing.js';
import { recordHistory } from '../helpers/history.js';
import { eventually, tempDir, uniqueTaskQueue, testEnvironment, type TestEnv } from '../helpers/temporal.js';

const ZOO = { FIXTURE_SCHEMA_ZOO: '1' };

describe('mcpListTools lists a server through the worker: each tool as the server sent it (dev server, real fixture servers)', () => {
  let t: TestEnv;
  const http: HttpFixture[] = [];
  const dir = tempDir('list-tools-');
  const pagedLog = join(dir, 'paged.jsonl');
  const modernPagedLog = join(dir, 'modern-paged.jsonl');
  const taskQueue = uniqueTaskQueue('list-tools');
  /** The error a listing of `server` fails with (a listing that succeeds fails the test). */
  const listingFailure = (server: string): Promise<unknown> =>
    t.durable.listTools(server).then(
      () => assert.fail('the listing succeeded'),
      (e: unknown) => e,
    );

  before(async () => {
    const legacyHttp = await startHttpFixture({ env: { ...ZOO, FIXTURE_TOOLS_PAGE_SIZE: '4' } });
    const modernHttp = await startHttpFixture({ script: modernServerPath, env: { ...ZOO, FIXTURE_TOOLS_PAGE_SIZE: '2', FIXTURE_LOG: modernPagedLog } });
    http.push(legacyHttp, modernHttp);
    const legacy = (env: Record<string, string>, more: Record<string, unknown> = {}) => ({ command: [process.execPath, fixtureServerPath], env, ...more });
    t = await testEnvironment({
      taskQueue,
      mcpConfig: {
        mcpServers: {
          'legacy-stdio': legacy(ZOO),
          'legacy-paged': legacy({ ...ZOO, FIXTURE_TOOLS_PAGE_SIZE: '3', FIXTURE_LOG: pagedLog }),
          'legacy-http': { url: legacyHttp.url },
          'modern-stdio': { command: [process.execPath, modernServerPath], env: ZOO },
          'modern-http': { url: modernHttp.url },
          looping: legacy({ FIXTURE_TOOLS_CURSOR_LOOP: '1' }),
          malformed: legacy({ FIXTURE_TOOLS_MALFORMED: '1' }),
          allowlisted: legacy(ZOO, { tools: ['echo', 'schema_zoo'] }),
          off: legacy({}, { enabled: false }),
        },
      },
    });
    // listTools refuses at once when no worker polls the task queue: start the tests once this worker's poll shows.
    await eventually(async () => {
      const q = await t.client.workflowService.describeTaskQueue({ namespace: t.namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 });
      return (q.pollers ?? []).length > 0 ? true : undefined;
    }, `a poller on task queue ${taskQueue}`);
  });
  after(async () => {
    await t?.teardown();
    for (const h of http) await h.close();
  });

  const zooOf = (tools: McpToolInfo[]) => {
    const zoo = tools.find((t) => t.name === 'schema_zoo');
    assert.ok(zoo, `schema_zoo is listed among ${tools.map((t) => t.name).join(', ')}`);
    return zoo;
  };

  for (const [server, era, known] of [
    ['legacy-stdio', 'legacy', 'echo'],
    ['legacy-http', 'legacy', 'echo'],
    ['modern-stdio', '2026-07-28', 'ask_name'],
    ['modern-http', '2026-07-28', 'ask_name'],
  ] as const) {
    it(`${server} (${era}): the tools, the schema with $ref, $defs and 2020-12 keywords exactly as sent (key order too)`, async () => {
      const workflowId = `list-tools-${server}-${Date.now()}`;
      const tools = await t.durable.listTools(server, { workflowId });
      if (server === 'legacy-stdio') await recordHistory(t.env.client.workflow.getHandle(workflowId), 'list-tools', t.env.address);
      assert.ok(
        tools.some((t) => t.name === known),
        `${known} is listed`,
      );
      assert.equal(new Set(tools.map((t) => t.name)).size, tools.length, 'no tool twice');
      // The whole tool: name, title, description, inputSchema, outputSchema, annotations and _meta, in the server's order.
      assert.equal(JSON.stringify(zooOf(tools)), ZOO_TOOL_JSON);
      for (const t of tools) assert.equal(typeof t.inputSchema, 'object');
    });
  }

  it('a paginated tools/list is followed to its end, cursor by cursor, and gives the same list as one page', async () => {
    const whole = await t.durable.listTools('legacy-stdio');
    const paged = await t.durable.listTools('legacy-paged');
    assert.deepEqual(
      paged.map((t) => JSON.stringify(t)),
      whole.map((t) => JSON.stringify(t)),
    );
    const pages = Math.ceil(whole.length / 3);
    assert.ok(pages >= 4, `${whole.length} tools make ${pages} pages of 3`);
    const cursors = () =>
      readFileSync(pagedLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.event === 'tools-list')
        .map((e) => e.cursor);
    const expected = Array.from({ length: pages }, (_, i) => (i === 0 ? null : `page:${i * 3}`));
    assert.deepEqual(cursors(), expected);
    // Listed again on the pooled session, which is not new any more: the server is asked again (tools change).
    await t.durable.listTools('legacy-paged');
    assert.deepEqual(cursors(), [...expected, ...expected]);

    // The modern era's HTTP server in pages of 2, likewise.
    const modern = await t.durable.listTools('modern-http');
    const modernCursors = readFileSync(modernPagedLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === 'tools-list')
      .map((e) => e.cursor);
    const modernPages = Math.ceil(modern.length / 2);
    assert.deepEqual(
      modernCursors.slice(-modernPages),
      Array.from({ length: modernPages }, (_, i) => (i === 0 ? null : `page:${i * 2}`)),
    );
  });

  it('a pagination that never ends fails the listing, naming the cursor, without retrying', async () => {
    const err = await listingFailure('looping');
    assert.ok(isToolCallFailure(err, FailureTypes.McpServerUnavailable), String(err));
    assert.match(err.message, /listing the tools of server "looping" \(workflow "mcp-tools-looping-[0-9a-f]+"\) failed: McpServerUnavailable: /);
    assert.match(err.failureMessage, /server "looping": tools\/list failed: the server sent the cursor "again" again after 2 pages: its pagination loops/);
    assert.equal(nonRetryable(err), true);
  });

  it('a listing of the wrong shape fails, naming the tool and what is wrong, without retrying', async () => {
    const err = await listingFailure('malformed');
    assert.ok(isToolCallFailure(err, FailureTypes.McpServerUnavailable), String(err));
    assert.match(err.failureMessage, /^server "malformed": tools\/list failed: .*tools\[\d+\] \("no_schema"\): inputSchema must be an object, got undefined/);
    assert.equal(nonRetryable(err), true);
  });

  it('an unknown server fails at once with UnknownServer, naming it and the configured servers; a disabled one too', async () => {
    const err = await listingFailure('nosuch');
    assert.ok(isToolCallFailure(err, FailureTypes.UnknownServer), String(err));
    assert.equal(err.type, 'UnknownServer');
    assert.equal(err.server, 'nosuch');
    assert.equal(err.operation, 'tools/list');
    assert.equal(
      err.failureMessage,
      'unknown MCP server "nosuch"; configured servers: legacy-stdio, legacy-paged, legacy-http, modern-stdio, modern-http, looping, malformed, allowlisted, off',
    );
    assert.equal(nonRetryable(err), true);
    const handle = t.env.client.workflow.getHandle(err.workflowId);
    const history = await handle.fetchHistory();
    assert.equal(history.events?.filter((e) => e.activityTaskStartedEventAttributes).length, 1, 'one attempt');
    await recordHistory(handle, 'list-tools-unknown-server', t.env.address);

    const off = await listingFailure('off');
    assert.ok(isToolCallFailure(off, FailureTypes.UnknownServer), String(off));
    assert.match(off.failureMessage, /MCP server "off" is disabled in the MCP config/);
  });

  it("a server's tools allowlist applies to its listing", async () => {
    const tools = await t.durable.listTools('allowlisted');
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo', 'schema_zoo'],
    );
    assert.equal(JSON.stringify(tools[1]), ZOO_TOOL_JSON);
  });

  it('a wrong input fails with InvalidInput, naming the field and the value', async () => {
    const err = await listingFailure('');
    assert.ok(isToolCallFailure(err, FailureTypes.InvalidInput), String(err));
    assert.equal(err.failureMessage, 'mcpListTools: field "server" must be a non-empty string, got ""');
  });
});

/** Whether the listing's innermost failure is an ApplicationFailure marked non-retryable. */
function nonRetryable(err: Error): boolean | undefined {
  const failures = causeChain(err, 10).filter((e) => e instanceof ApplicationFailure);
  return failures.at(-1)?.nonRetryable ?? undefined;
}
