/**
 * Interop (issue #41 item 4; docs/eras.md, docs/tasks.md): a server written with the official MCP Rust SDK (`rmcp`, from crates.io,
 * pinned in test/fixtures/rust/elicit-server/Cargo.lock and built by the test setup into .tools/rust), through the real
 * worker, with no config but the command: the default era, `auto`.
 *
 * rmcp offers every protocol version up to 2026-07-28, so the worker negotiates 2026-07-28. There its tools that ask in
 * rounds (`InputRequiredResult`) ask; its tools that ask the old way (`Peer::elicit`, `Peer::elicit_url`) are refused
 * by rmcp itself (-32600 "server-to-client requests are not allowed on protocol 2026-07-28 or later; return
 * InputRequiredResult instead"), and the worker must run them again in an older era: the person asked once, the tool
 * run at most twice before that. Its MCP Tasks (`TaskManager`, extension `io.modelcontextprotocol/tasks`) ask inside the
 * task. Decline and cancel reach the tool; a worker SIGKILLed while a question waits asks the person once.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, pendingQuery } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { rustElicitServerBinary, startRustHttpServer } from '../fixtures/rust/paths.js';
import { DevServer, writeJson } from '../faults/lib.js';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { serverForFile } from '../helpers/file-server.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

// No skip: a missing cargo or a failed build fails this file here, saying what to run.
const binary = rustElicitServerBinary();
const dir = tempDir();
const logs = { stdio: join(dir, 'rs-stdio.jsonl'), http: join(dir, 'rs-http.jsonl') };
const { extraServers } = serverForFile(
  () => startRustHttpServer({ FIXTURE_LOG: logs.http }),
  { rshttp: {} },
  { rs: { command: [binary], env: { FIXTURE_LOG: logs.stdio } } },
);

const entries = (log: string, tool: string, event = 'run') => readFixtureLog(log).filter((e) => e.event === event && e.tool === tool);
/** The call's first question; if none comes, fails saying why: the call's activity attempt and its last failure. */
async function firstQuestion(handle: WorkflowHandle) {
  try {
    return (await waitForPending(handle))[0];
  } catch (err) {
    const activity = (await handle.describe()).raw.pendingActivities?.[0];
    const why = activity ? `activity attempt ${activity.attempt}, last failure: ${activity.lastFailure?.message ?? 'none'}` : 'no activity running';
    throw new Error(`the person was never asked (${why}): ${(err as Error).message}`);
  }
}
const attempts = async (handle: WorkflowHandle) =>
  (await handle.fetchHistory()).events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);

describe('a server of the Rust SDK (rmcp), era auto, no config', () => {
  const suite = suiteEnvironment({ name: 'interop-rust', extraServers });
  const start = (tool: string, server = 'rs') =>
    suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `rs-${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server, tool }],
    });

  for (const server of ['rs', 'rshttp']) {
    const log = server === 'rs' ? logs.stdio : logs.http;
    it(`${server}: rounds (InputRequiredResult) on 2026-07-28: two questions, each asked once, the answers reach the tool`, async (t) => {
      const before = entries(log, 'trip').length;
      const handle = await start('trip', server);
      const watch = watchPending(handle);
      t.after(() => watch.end());
      const [city] = await waitForPending(handle);
      watch.seen.set(city.id, city);
      assert.deepEqual([city.kind, city.prompt], ['input', 'Which city? (rust InputRequiredResult)']);
      assert.match(city.id, /^c1\.r1\./, 'a modern-era round');
      await handle.signal(answerSignal, { id: city.id, ok: true, data: { city: 'Lisbon' } });
      const nights = await eventually(async () => (await waitForPending(handle)).find((r) => r.id !== city.id), 'the second question');
      watch.seen.set(nights.id, nights);
      assert.equal(nights.prompt, 'How many nights in Lisbon? (rust InputRequiredResult)');
      await handle.signal(answerSignal, { id: nights.id, ok: true, data: { nights: 3 } });
      assert.deepEqual(await handle.result(), { output: 'Trip to Lisbon for 3 nights', isError: false });
      assert.deepEqual([...(await watch.stop()).keys()], [city.id, nights.id], 'each question asked once');
      const runs = entries(log, 'trip').slice(before);
      assert.deepEqual(
        runs.map((r) => [r.proto, r.round]),
        [
          ['2026-07-28', null],
          ['2026-07-28', 'city'],
          ['2026-07-28', 'nights:Lisbon'],
        ],
        'one run per round, on 2026-07-28',
      );
      assert.deepEqual(runs[2].inputResponses, { nights: { action: 'accept', content: { nights: 3 } } });
    });
  }

  it('rounds: declined at the first question, the tool sees decline', async () => {
    const handle = await start('trip');
    const [city] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: city.id, ok: false, reason: 'declined' });
    assert.deepEqual(await handle.result(), { output: 'no trip (decline)', isError: false });
  });

  it('rounds: cancelled at the second question, the tool sees cancel', async () => {
    const handle = await start('trip');
    const [city] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: city.id, ok: true, data: { city: 'Oslo' } });
    const nights = await eventually(async () => (await waitForPending(handle)).find((r) => r.id !== city.id), 'the second question');
    await handle.signal(answerSignal, { id: nights.id, ok: false, reason: 'cancelled' });
    assert.deepEqual(await handle.result(), { output: 'no trip (cancel)', isError: false });
  });

  it('rounds, URL mode: an authorization request with the link; accept reaches the tool', async () => {
    const handle = await start('trip_link');
    const [request] = await waitForPending(handle);
    assert.deepEqual(
      [request.kind, request.url, request.prompt, request.data],
      ['authorization', 'https://example.com/rust-hotel', "Book at the hotel's page (rust InputRequiredResult, URL mode)", undefined],
    );
    await handle.signal(answerSignal, { id: request.id, ok: true });
    assert.deepEqual(await handle.result(), { output: 'linked (accept)', isError: false });
  });

  // The old way. The first call of each tool is refused in the 2026-07-28 era by rmcp and must run again in an older one.
  const oldWay = async (t: { after(fn: () => void): void }, tool: string, answer: Record<string, unknown>) => {
    const before = entries(logs.stdio, tool).length;
    const handle = await start(tool);
    const watch = watchPending(handle);
    t.after(() => watch.end());
    const request = await firstQuestion(handle);
    watch.seen.set(request.id, request);
    const runsBeforeAsked = entries(logs.stdio, tool).length - before;
    assert.ok(runsBeforeAsked <= 2, `the tool ran ${runsBeforeAsked} times before the person was asked (at most twice)`);
    await handle.signal(answerSignal, { id: request.id, ok: false, ...answer });
    const result = await handle.result();
    assert.deepEqual([...(await watch.stop()).keys()], [request.id], 'the person was asked once');
    const runs = entries(logs.stdio, tool).slice(before);
    assert.notEqual(runs.at(-1)!.proto, '2026-07-28', 'the run that asked was on an older era');
    return { request, result, runs, handle };
  };

  it('the old way (Peer::elicit): refused on 2026-07-28, run again on an older era; asked once; the answer reaches the tool', async (t) => {
    const { request, result, runs, handle } = await oldWay(t, 'greet', { ok: true, data: { name: 'Ada' } });
    assert.deepEqual([request.kind, request.prompt], ['input', 'What is your name? (rust Peer::elicit)']);
    assert.deepEqual(result, { output: 'Hi Ada', isError: false });
    assert.ok(runs.length <= 2, `the tool ran ${runs.length} times in all`);
    assert.ok(
      (await attempts(handle)).every((a) => (a ?? 0) <= 2),
      'no endless retries',
    );
    assert.deepEqual(entries(logs.stdio, 'greet', 'received').at(-1)!.content, { name: 'Ada' });
  });

  it('the old way (Peer::elicit): declined, the tool sees decline', async (t) => {
    const { result } = await oldWay(t, 'greet', { ok: false, reason: 'declined' });
    assert.deepEqual(result, { output: 'no name (decline)', isError: false });
  });

  it('the old way (Peer::elicit): cancelled, the tool sees cancel', async (t) => {
    const { result } = await oldWay(t, 'greet', { ok: false, reason: 'cancelled' });
    assert.deepEqual(result, { output: 'no name (cancel)', isError: false });
  });

  it('the old way, URL mode (Peer::elicit_url): an authorization request with the link; accept reaches the tool', async (t) => {
    const { request, result } = await oldWay(t, 'link', { ok: true });
    assert.deepEqual(
      [request.kind, request.url, request.prompt],
      ['authorization', 'https://example.com/rust-sign-in', 'Sign in to continue (rust Peer::elicit_url)'],
    );
    assert.deepEqual(result, { output: 'linked (accept)', isError: false });
  });

  it('the old way, the server gives up first (Peer::elicit_with_timeout: notifications/cancelled, the call fails): the call is released, the question stays pending; the answer re-runs the tool, asked once', async (t) => {
    const before = entries(logs.stdio, 'greet_gives_up', 'gave_up').length;
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `rs-gives-up-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'rs', tool: 'greet_gives_up', elicitation: { holdFor: 60 * 60_000 } }],
    });
    const watch = watchPending(handle);
    t.after(() => watch.end());
    const request = await firstQuestion(handle);
    watch.seen.set(request.id, request);
    assert.equal(request.prompt, 'What is your name? (rust Peer::elicit_with_timeout)');
    await eventually(
      async () => entries(logs.stdio, 'greet_gives_up', 'gave_up').length > before && ((await handle.describe()).raw.pendingActivities ?? []).length === 0,
      'the server gave up and the call was released',
    );
    assert.deepEqual(
      (await handle.query(pendingQuery)).map((r) => r.id),
      [request.id],
      'the question is still pending',
    );
    await handle.signal(answerSignal, { id: request.id, ok: true, data: { name: 'Max' } });
    assert.deepEqual(await handle.result(), { output: 'Hi Max', isError: false });
    assert.deepEqual([...(await watch.stop()).keys()], [request.id], 'the person was asked once');
  });

  it('after the old way, the rounds tools of the same server still ask in rounds on 2026-07-28', async () => {
    const before = entries(logs.stdio, 'trip').length;
    const handle = await start('trip');
    const [city] = await waitForPending(handle);
    assert.match(city.id, /^c1\.r1\./, 'a modern-era round');
    await handle.signal(answerSignal, { id: city.id, ok: false, reason: 'declined' });
    assert.deepEqual(await handle.result(), { output: 'no trip (decline)', isError: false });
    assert.deepEqual(
      entries(logs.stdio, 'trip')
        .slice(before)
        .map((r) => r.proto),
      ['2026-07-28', '2026-07-28'],
    );
  });

  it('MCP Tasks (TaskManager, over HTTP): the task asks inside; the answer goes by tasks/update; one tools/call', async () => {
    const before = entries(logs.http, 'task_trip').length;
    const handle = await start('task_trip', 'rshttp');
    const [city] = await waitForPending(handle);
    assert.deepEqual([city.kind, city.prompt], ['input', 'Which city? (rust TaskContext::request_input)']);
    await handle.signal(answerSignal, { id: city.id, ok: true, data: { city: 'Oslo' } });
    assert.deepEqual(await handle.result(), { output: 'Task trip to Oslo', isError: false });
    assert.equal(entries(logs.http, 'task_trip').length - before, 1, 'one tools/call');
    assert.deepEqual(entries(logs.http, 'task_trip', 'received').at(-1)!.content, { city: 'Oslo' });
  });

  it('MCP Tasks: declined inside the task, the tool sees decline', async () => {
    const handle = await start('task_trip', 'rshttp');
    const [city] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: city.id, ok: false, reason: 'declined' });
    assert.deepEqual(await handle.result(), { output: 'no trip (decline)', isError: false });
  });
});

// ---- A worker process SIGKILLed while a question waits (a real dev server, workers as processes). ----

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

describe('a server of the Rust SDK (rmcp): the worker SIGKILLed while a question waits', () => {
  let server: DevServer;
  let client: Client;
  let close: () => Promise<void>;
  before(async () => {
    server = await DevServer.create(join(dir, 'temporal'), `interop-rust-${process.pid}`);
    await server.start();
    const c = await server.client();
    client = c.client;
    close = () => c.connection.close();
  });
  after(async () => {
    await close?.();
    await server?.kill('SIGTERM');
  });

  const worker = (configPath: string, taskQueue: string): SpawnedProcess =>
    spawnNode([workerEntry, '--mcp-config', configPath], {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: taskQueue,
    });

  /** Starts `tool`, waits for its first question (and for `next` to pass it on), SIGKILLs the worker, answers, starts another. */
  const acrossKill = async (name: string, mcpServer: Record<string, unknown>, tool: string, answers: Array<Record<string, unknown>>) => {
    const configPath = writeJson(join(dir, `${name}.json`), { mcpServers: { r: mcpServer } });
    const taskQueue = `${name}-${process.pid}-${Date.now()}`;
    const first = worker(configPath, taskQueue);
    await first.waitFor(/durable-mcp worker: Temporal/, 60_000);
    const handle = await client.workflow.start(mcpToolCall, { taskQueue, workflowId: `${name}-${Date.now()}`, args: [{ server: 'r', tool }] });
    const watch = watchPending(handle);
    let second: SpawnedProcess | undefined;
    try {
      const asked: string[] = [];
      for (const [i, data] of answers.entries()) {
        const request =
          i === 0
            ? await firstQuestion(handle)
            : await eventually(async () => (await waitForPending(handle)).find((r) => !asked.includes(r.id)), `question ${i + 1}`);
        watch.seen.set(request.id, request);
        asked.push(request.id);
        if (i === answers.length - 1) {
          await first.kill('SIGKILL');
          await handle.signal(answerSignal, { id: request.id, ok: true, data });
          second = worker(configPath, taskQueue);
        } else {
          await handle.signal(answerSignal, { id: request.id, ok: true, data });
        }
      }
      const result = await handle.result();
      assert.deepEqual([...(await watch.stop()).keys()], asked, 'each question asked once');
      return result;
    } finally {
      watch.end();
      await first.kill('SIGKILL');
      await second?.kill('SIGTERM');
    }
  };

  it('rounds: the worker killed while the second question waits; answered; a new worker finishes; each answer reaches the tool once', async () => {
    const log = join(dir, 'kill-rounds.jsonl');
    const result = await acrossKill('kill-rounds', { command: [binary], env: { FIXTURE_LOG: log } }, 'trip', [{ city: 'Rome' }, { nights: 2 }]);
    assert.deepEqual(result, { output: 'Trip to Rome for 2 nights', isError: false });
    const received = entries(log, 'trip', 'received').map((e) => e.content);
    assert.deepEqual(received, [{ city: 'Rome' }, { nights: 2 }], 'each answer reached the tool once');
  });

  it('the old way: the worker killed while the question waits; answered; a new worker runs the tool again and it gets the answer, the person asked once', async () => {
    const log = join(dir, 'kill-old-way.jsonl');
    const result = await acrossKill('kill-old-way', { command: [binary], env: { FIXTURE_LOG: log } }, 'greet', [{ name: 'Lin' }]);
    assert.deepEqual(result, { output: 'Hi Lin', isError: false });
    assert.deepEqual(
      entries(log, 'greet', 'received').map((e) => e.content),
      [{ name: 'Lin' }],
      'the answer reached the tool once',
    );
  });

  it('MCP Tasks over HTTP: the worker killed while the task asks; a new worker re-attaches by task id; one tools/call', async () => {
    const log = join(dir, 'kill-task.jsonl');
    const own = await startRustHttpServer({ FIXTURE_LOG: log });
    try {
      const result = await acrossKill('kill-task', { url: own.url }, 'task_trip', [{ city: 'Kyiv' }]);
      assert.deepEqual(result, { output: 'Task trip to Kyiv', isError: false });
      assert.equal(entries(log, 'task_trip').length, 1, 'one tools/call: the new worker did not call the tool again');
      assert.deepEqual(
        entries(log, 'task_trip', 'received').map((e) => e.content),
        [{ city: 'Kyiv' }],
      );
    } finally {
      await own.close();
    }
  });
});
