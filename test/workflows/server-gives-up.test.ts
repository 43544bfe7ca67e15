/**
 * Issue #34 item 5: a legacy-era server that gives up on its own question without cancelling it, as the official Java
 * SDK does by default (it fails its request to the client after 10 s, then the `tools/call` with -32603 "Did not
 * observe any item or terminal signal within 10000ms …", and never sends notifications/cancelled). The fixture does
 * the same after GIVE_UP_MS (1 s here). Such an error, arriving while the call's question is open, releases the call
 * as a cancellation would: no attempt is spent, the question stays pending, and when the person answers minutes later
 * (time-skipping) the tool runs again once, answered from the record. The worker logs once which server gave up.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal } from '../../src/workflows/messages.js';
import { givesUpServerPath, readFixtureLog } from '../fixtures/paths.js';
import { captureRuntimeLogs, eventually, logText, tempDir, testEnvironment } from '../helpers/temporal.js';
import { waitForPending, watchPending } from '../helpers/watch.js';

const logged = captureRuntimeLogs();

describe('a server that fails its call while its question is open (as the Java SDK does after 10 s)', () => {
  it('the call is released with no attempt spent; answered minutes later it completes, the tool re-run once', async (t) => {
    const log = join(tempDir(), 'gives-up.jsonl');
    await using env = await testEnvironment({
      timeSkipping: true,
      name: 'gives-up',
      extraServers: { javaish: { command: [process.execPath, givesUpServerPath], env: { FIXTURE_LOG: log, GIVE_UP_MS: '1000' } } },
    });
    const events = (event: string) => readFixtureLog(log).filter((e) => e.event === event).length;

    const call = async (name: string) => {
      const handle = await env.env.client.workflow.start(mcpToolCall, {
        taskQueue: env.taskQueue,
        workflowId: `gives-up-${Math.random().toString(36).slice(2)}`,
        // Held inline for up to an hour (workflow time): what releases the call is the server giving up.
        args: [{ server: 'javaish', tool: 'ask_name', elicitation: { holdFor: 60 * 60_000, expiresIn: 24 * 60 * 60_000 } }],
      });
      const watch = watchPending(handle);
      t.after(() => watch.end());
      const runs = events('run');
      const [request] = await waitForPending(handle);
      watch.seen.set(request.id, request);
      // The server gave up; the call is released: no activity runs, the question stays pending.
      await eventually(
        async () => events('gave-up') === events('run') - events('received') && ((await handle.describe()).raw.pendingActivities ?? []).length === 0,
        'the call released',
      );
      assert.equal(events('run'), runs + 1, 'the tool ran once so far: the give-up was not retried');

      await env.env.sleep(5 * 60_000); // the person answers minutes later
      await handle.signal(answerSignal, { id: request.id, ok: true, data: { name } });
      assert.deepEqual(await handle.result(), { output: `hello ${name}`, isError: false });
      assert.deepEqual([...(await watch.stop()).keys()], [request.id], 'the person was asked once');
      assert.equal(events('run'), runs + 2, 'the tool re-ran once, answered from the record');
      const { events: history } = await handle.fetchHistory();
      const attempts = history!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
      assert.deepEqual(attempts, [1, 1], 'two activities (released, then the re-run), no attempt spent on the give-up');
    };

    await call('Ada');
    await call('Grace'); // the same server gives up again: the call is released again, the log line not repeated
    assert.equal(events('gave-up'), 2);
    const lines = logged.map(logText).filter((l) => l.includes('gives up on its own question'));
    assert.equal(lines.length, 1, `logged once for the server: ${lines.join(' | ')}`);
    assert.match(lines[0], /server "javaish" gives up on its own question after about \d+\.\d s: it failed tool "ask_name"/);
  });
});
