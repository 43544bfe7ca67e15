/**
 * Issue #34 item 4 (docs/eras.md): servers of three SDKs whose tools ask the old way (a server-initiated
 * `elicitation/create`), each refusing it in the 2026-07-28 era in its own words and its own form: the Go SDK v1.8
 * (`ServerSession.Elicit`: an `isError` result through `mcp.AddTool`, a JSON-RPC error of code 0 through
 * `Server.AddTool`), the TypeScript SDK v2 (`McpServer` and `elicitInput`: an `isError` result) and the Python SDK 2.x
 * (`ctx.elicit`: JSON-RPC -32600). Recognised by its shape (a modern-era call whose error names a server-to-client
 * method), each call in `era: "auto"` runs again in the legacy era once, the worker remembers that era for the server,
 * the person is asked once and the tool completes: two runs of the tool for the first call, one for the next.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { oldWayServerPath, readFixtureLog } from '../fixtures/paths.js';
import { goElicitServerBinary } from '../fixtures/go/paths.js';
import { pythonElicitServerPath, pythonSdkDir } from '../fixtures/python/paths.js';
import { suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

const dir = tempDir();
const go = goElicitServerBinary();
const servers: Record<string, { log: string; tool: string; command: string[]; env: Record<string, string>; prompt: string; structured?: boolean }> = {
  gotyped: { log: join(dir, 'go-typed.jsonl'), tool: 'greet', command: [go], env: {}, prompt: 'What is your name? (go ServerSession.Elicit)' },
  goraw: { log: join(dir, 'go-raw.jsonl'), tool: 'greet_raw', command: [go], env: {}, prompt: 'What is your name? (go ServerSession.Elicit)' },
  tsv2: {
    log: join(dir, 'ts-v2.jsonl'),
    tool: 'greet',
    command: [process.execPath, oldWayServerPath],
    env: {},
    prompt: 'What is your name? (TypeScript SDK v2 elicitInput)',
  },
  py2: {
    log: join(dir, 'py2.jsonl'),
    tool: 'greet',
    command: ['python3', pythonElicitServerPath, 'stdio'],
    env: { PYTHONPATH: pythonSdkDir() },
    prompt: 'What is your name? (python ctx.elicit)',
    structured: true, // the SDK sends a str result as structured content too
  },
};
const extraServers = Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, { command: s.command, env: { ...s.env, FIXTURE_LOG: s.log } }]));

describe('servers of three SDKs whose tools ask the old way, in era auto', () => {
  const suite = suiteEnvironment({ name: 'interop-old-way', extraServers });
  const runs = (log: string) => readFixtureLog(log).filter((e) => e.event === 'run').length;

  for (const [server, s] of Object.entries(servers)) {
    it(`${server}: the call runs again in the legacy era once, the person is asked once, the tool completes`, async (t) => {
      const call = async (name: string) => {
        const handle = await suite.env.client.workflow.start(mcpToolCall, {
          taskQueue: suite.taskQueue,
          workflowId: `${server}-${Math.random().toString(36).slice(2)}`,
          args: [{ server, tool: s.tool }],
        });
        const watch = watchPending(handle);
        t.after(() => watch.end());
        const [request] = await waitForPending(handle);
        watch.seen.set(request.id, request);
        assert.equal(request.prompt, s.prompt);
        assert.match(request.id, /^c1\.1\./, 'asked on the legacy session (elicitation/create)');
        await handle.signal(answerSignal, { id: request.id, ok: true, data: { name } });
        const output = s.structured ? JSON.stringify({ result: `Hi ${name}` }) : `Hi ${name}`;
        assert.deepEqual(await handle.result(), { output, isError: false });
        assert.deepEqual([...(await watch.stop()).keys()], [request.id], 'the person was asked once');
        const { events } = await handle.fetchHistory();
        return events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
      };

      assert.deepEqual(await call('Ada'), [1], 'one attempt: refused in the 2026-07-28 era, then run again at once in the legacy era');
      assert.equal(runs(s.log), 2, 'the tool ran twice: refused in the 2026-07-28 era, then asking in the legacy era');
      assert.equal(suite.worker.pool.asksTheOldWay(server, s.tool), true, 'the worker remembers the tool asks the old way');

      assert.deepEqual(await call('Grace'), [1], 'the next call goes to the legacy era at once');
      assert.equal(runs(s.log), 3, 'the tool ran once more');
    });
  }
});
