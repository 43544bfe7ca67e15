/**
 * Issue #41 items 1 and 3 with a server of the official MCP Go SDK (v1.8.0, test/fixtures/go/elicit-server): `go_trip`
 * asks in two rounds the 2026-07-28 way, `go_legacy` asks the same two questions the old way (`ServerSession.Elicit`).
 * In sequence (`go_trip`, `go_legacy`, `go_trip`), with the worker SIGKILLed while each call's second question waits,
 * every call ends with the tool's real answer: the old way falls back to the legacy era for `go_legacy` only, and
 * `go_trip` keeps its rounds (before the fix the second `go_trip` ran in the legacy era, where the SDK turns only the
 * first round into `elicitation/create` and hands the second back as a result carrying `inputRequests`, which became
 * a successful call with empty output).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { goElicitServerBinary } from '../fixtures/go/paths.js';
import { eventually, suiteEnvironment, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { watchPending } from '../helpers/watch.js';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

describe('Go SDK server: go_trip, go_legacy, go_trip, each asking twice, the worker SIGKILLed while the second question waits', () => {
  const suite = suiteEnvironment({ name: 'go-sequence' });

  it('each call ends with its real answer, each question is asked once, each round-trip answer reaches the tool once', async () => {
    const dir = tempDir();
    const log = join(dir, 'go.jsonl');
    const configPath = join(dir, 'mcp.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { go: { command: [goElicitServerBinary()], env: { FIXTURE_LOG: log } } } }));
    const taskQueue = uniqueTaskQueue('go-sequence');
    const env = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_TASK_QUEUE: taskQueue };
    const start = async () => {
      const proc = spawnNode([workerEntry, '--mcp-config', configPath], env);
      await proc.waitFor(/durable-mcp worker: Temporal/);
      return proc;
    };
    let worker: SpawnedProcess = await start();
    try {
      const trips = [
        { tool: 'go_trip', city: 'Lisbon', nights: 3 },
        { tool: 'go_legacy', city: 'Oslo', nights: 2 },
        { tool: 'go_trip', city: 'Kyoto', nights: 5 },
      ];
      for (const [i, trip] of trips.entries()) {
        const before = readFixtureLog(log).length;
        const handle = await suite.client.workflow.start(mcpToolCall, {
          taskQueue,
          workflowId: `go-sequence-${i}-${Date.now()}`,
          args: [{ server: 'go', tool: trip.tool, heartbeatTimeout: 2000, elicitation: { holdFor: 10 * 60 * 1000 } }],
        });
        const watch = watchPending(handle);
        const first = await eventually(() => [...watch.seen.values()][0], `${trip.tool}: the first question`);
        assert.equal(first.prompt, 'Which city? (go)');
        await handle.signal(answerSignal, { id: first.id, ok: true, data: { city: trip.city } });
        const second = await eventually(() => [...watch.seen.values()].find((r) => r.id !== first.id), `${trip.tool}: the second question`);
        assert.equal(second.prompt, 'How many nights? (go)');
        // The second question waits: the worker dies, the person answers while no worker runs, a new worker finishes.
        await worker.kill('SIGKILL');
        await handle.signal(answerSignal, { id: second.id, ok: true, data: { nights: trip.nights } });
        worker = await start();
        const { output, isError } = await handle.result();
        assert.deepEqual({ output, isError }, { output: `Trip to ${trip.city} for ${trip.nights} nights`, isError: false }, `${trip.tool} (call ${i + 1})`);
        assert.deepEqual([...(await watch.stop()).keys()], [first.id, second.id], `${trip.tool}: each question asked once`);
        const received = readFixtureLog(log)
          .slice(before)
          .filter((e) => e.event === 'received')
          .map((e) => `${e.key}=${JSON.stringify(e.content)}`);
        const answers = [`city=${JSON.stringify({ city: trip.city })}`, `nights=${JSON.stringify({ nights: trip.nights })}`];
        if (trip.tool === 'go_trip') {
          assert.match(first.id, /\.r1\./, 'go_trip asks in rounds (the modern era)');
          assert.deepEqual(received, answers, 'each answer reached the tool once');
        } else {
          assert.match(first.id, /^c1\.1\./, 'go_legacy asks on the live session (the legacy era)');
          // The old way re-runs the tool up to its question after the kill (docs/guarantees.md): the city, from the record, again.
          assert.deepEqual(received, [answers[0], answers[0], answers[1]], 'the nights reached the tool once');
        }
      }
    } finally {
      await worker.kill('SIGTERM');
    }
  });
});
