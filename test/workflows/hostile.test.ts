import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { AnswerRejectedFailure } from '../../src/client/index.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingDetailsQuery, pendingQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { hostileServerPath, readFixtureLog } from '../fixtures/paths.js';
import { updateErrors } from '../helpers/server-metrics.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const cli = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
function runCli(args: string[], address: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' }, timeout: 60_000 },
      (err, stdout, stderr) => res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Issue #16: a hostile MCP server's elicitations, through the worker, on a real Temporal dev server. */
describe('hostile servers: what a person sees is safe, faithful, answerable, and fits', () => {
  const hostileLog = join(tempDir(), 'hostile.jsonl');
  const suite = suiteEnvironment({
    name: 'hostile',
    metrics: true,
    extraServers: { hostile: { command: [process.execPath, hostileServerPath], env: { FIXTURE_LOG: hostileLog } } },
  });

  const start = (tool: string) =>
    suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `hostile-${tool}-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'hostile', tool }],
    });

  async function historyFacts(handle: WorkflowHandle) {
    const events = (await handle.fetchHistory()).events ?? [];
    return {
      workflowTaskFailures: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
      updates: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateAdmittedEventAttributes).length,
      activityAttempts: events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt),
    };
  }
  const runs = (tool: string) => readFixtureLog(hostileLog).filter((e) => e.event === 'run' && e.tool === tool).length;
  const errorsOf = (tool: string) => readFixtureLog(hostileLog).filter((e) => e.event === 'elicit_error' && e.tool === tool);

  const refusals: Array<[string, string]> = [
    ['huge_message', 'over the bound of 65536 bytes'],
    ['deep_nesting', 'nested deeper than 32 levels'],
    ['ref_defs', '$defs'],
    ['additional_schema', 'additionalProperties'],
    ['ghost_required', '"ghost"'],
    ['fractional_min', 'minLength'],
    ['empty_enum', 'non-empty array'],
    ['bad_default', 'default'],
    ['pattern_backreference', 'pattern "^(\\\\w+) \\\\1$" uses a backreference (\\1), which a linear-time engine cannot run'],
    ['url_javascript', 'javascript:'],
    ['url_file', 'file:'],
    ['url_data', 'data:'],
    ['url_escapes', 'printable ASCII'],
    ['url_plain_http', 'loopback'],
  ];
  for (const [tool, fragment] of refusals) {
    it(`${tool}: the server receives -32602 naming the problem; nothing became pending, no workflow task failed, the tool ran once`, async () => {
      const handle = await start(tool);
      const result = await handle.result();
      assert.equal(result.isError, true, result.output.slice(0, 300));
      const [error, ...more] = errorsOf(tool);
      assert.equal(more.length, 0);
      assert.equal(error.code, -32602, JSON.stringify(error));
      assert.ok(String(error.message).includes(fragment), `"${error.message}" should mention ${fragment}`);
      assert.ok(result.output.startsWith('refused -32602: '), result.output.slice(0, 300));
      assert.deepEqual(await handle.query(pendingQuery), []);
      const facts = await historyFacts(handle);
      assert.deepEqual(facts, { workflowTaskFailures: 0, updates: 0, activityAttempts: [1] });
      assert.equal(runs(tool), 1, 'the tool ran once');
    });
  }

  it('pattern: the Request carries the schema as sent; submitAnswer rejects a non-matching answer naming the field, and a matching one reaches the server', async () => {
    const handle = await start('pattern_pin');
    const [request] = await waitForPending(handle);
    assert.deepEqual((request.data as any).schema, { type: 'object', properties: { pin: { type: 'string', pattern: '^[0-9]{4}$' } }, required: ['pin'] });
    await assert.rejects(handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { pin: 'abc' } }] }), (err: Error) =>
      /field "pin": must match pattern "\^\[0-9\]\{4\}\$"/.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`),
    );
    assert.equal((await handle.query(pendingQuery)).length, 1, 'still pending after the rejection');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { pin: '1234' } }] });
    assert.deepEqual(await handle.result(), { output: 'accept {"pin":"1234"}', isError: false });
    assert.equal(errorsOf('pattern_pin').length, 0, 'the server accepted the answer');
    assert.equal(runs('pattern_pin'), 1);
  });

  // Issue #31: ^(a+)+$ against 44 a's and "!" takes a backtracking engine hours, on the worker's main thread.
  it('pattern_backtracks: a pattern that backtracks on its own default is checked in linear time: a call started while it is admitted completes, and the server receives -32602 naming the field', async () => {
    const hostile = await start('pattern_backtracks');
    await eventually(() => runs('pattern_backtracks') === 1, 'the hostile tool to send its elicitation');
    const other = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `hostile-beside-${Math.random().toString(36).slice(2)}`,
      args: [{ server: 'fx', tool: 'echo', arguments: { text: 'still here' } }],
    });
    assert.deepEqual(await other.result(), { output: 'echo: still here', isError: false });
    const result = await hostile.result();
    assert.equal(result.isError, true, result.output.slice(0, 300));
    const [error, ...more] = errorsOf('pattern_backtracks');
    assert.equal(more.length, 0);
    assert.equal(error.code, -32602, JSON.stringify(error));
    assert.match(String(error.message), /property "word" has a default its own field rejects \(must match pattern "\^\(a\+\)\+\$", got "a{44}!"\)/);
    assert.deepEqual(await hostile.query(pendingQuery), []);
    assert.deepEqual(await historyFacts(hostile), { workflowTaskFailures: 0, updates: 0, activityAttempts: [1] });
  });

  it('pattern_backtracks_answer: a person’s 100,000-character answer that backtracks is refused naming the field, the workflow takes the next answer, and the server receives it', async () => {
    const handle = await start('pattern_backtracks_answer');
    const [request] = await waitForPending(handle);
    const answer = (word: string) => suite.durable.submit(handle.workflowId, { id: request.id, ok: true, data: { word } });
    await assert.rejects(answer(`${'a'.repeat(100_000)}!`), (err: Error) => {
      assert.ok(err instanceof AnswerRejectedFailure, String(err));
      assert.equal(err.type, 'InvalidAnswer');
      assert.match(err.reason, /field "word": must match pattern "\^\(a\+\)\+\$", got "a{60}…"/);
      return true;
    });
    assert.equal((await handle.query(pendingQuery)).length, 1, 'still pending after the rejection');
    await answer('a'.repeat(100_000));
    assert.deepEqual(await handle.result(), { output: `accept ${JSON.stringify({ word: 'a'.repeat(100_000) })}`, isError: false });
    assert.equal(errorsOf('pattern_backtracks_answer').length, 0, 'the server accepted the answer');
    const facts = await historyFacts(handle);
    assert.equal(facts.workflowTaskFailures, 0);
  });

  it('an https: URL is admitted, and its pending context shows the host', async () => {
    const handle = await start('url_https');
    await waitForPending(handle);
    const [details] = await handle.query(pendingDetailsQuery);
    assert.equal(details.request.url, 'https://login.example.test/oauth?state=1');
    assert.equal(details.context.host, 'login.example.test');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: details.request.id, ok: false, reason: 'declined' }] });
    assert.equal((await handle.result()).output, 'decline');
  });

  it('durable-mcp pending shows a prompt with ESC, BEL, CR and newlines as visible escapes, no line of it like an entry; --json stays exact', async () => {
    const handle = await start('control_prompt');
    const [request] = await waitForPending(handle);
    const text = await runCli(['pending', handle.workflowId], suite.env.address);
    assert.equal(text.code, 0, text.stderr);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text.stdout), `no raw control character: ${JSON.stringify(text.stdout)}`);
    const lines = text.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.filter((l) => !l.startsWith(' ')),
      [`${handle.workflowId}  ${request.id}  input  hostile/control_prompt`],
      'one entry line: the real one',
    );
    assert.equal(lines[1], '    Confirm\\e]0;pwned\\a the \\e[2Ktransfer\\r');
    assert.ok(lines.includes('    | wf-forged  c9.9.ffff  input  evil/tool'), text.stdout);
    assert.ok(!lines.some((l) => l.startsWith('    url: ')), 'no forged url: line');
    assert.ok(lines.includes('    fields: "ok\\u001b[31m":boolean'), text.stdout);
    const json = await runCli(['pending', handle.workflowId, '--json'], suite.env.address);
    assert.equal(JSON.parse(json.stdout)[0].pending[0].request.prompt, request.prompt, '--json carries the prompt exactly');
    assert.equal(request.prompt, 'Confirm\u001b]0;pwned\u0007 the \u001b[2Ktransfer\r\nwf-forged  c9.9.ffff  input  evil/tool\n    url: https://evil.test');
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: false, reason: 'declined' }] });
    await handle.result();
  });

  it('15 concurrent elicitations in one call log no warning, all are answered, and Temporal never refuses or aborts an update of the run', async () => {
    const errorsBefore = await updateErrors(suite.metricsPort);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const handle = await start('many_at_once');
      const answered = new Set<string>();
      while (answered.size < 15) {
        const pending = await handle.query(pendingQuery);
        for (const r of pending.filter((p) => !answered.has(p.id))) {
          const n = Number(/Question (\d+)\?/.exec(r.prompt)![1]);
          await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: r.id, ok: true, data: { n } }] });
          answered.add(r.id);
        }
        if (pending.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      const result = await handle.result();
      assert.equal(result.isError, false, result.output);
      assert.deepEqual(
        result.output.split('\n'),
        Array.from({ length: 15 }, (_, i) => `accept {"n":${i + 1}}`),
      );
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, []);
      // At most 7 of the run's elicit updates in flight (src/activities/update-slots.ts): before, 15 at once passed
      // Temporal's 10, drew refusals, and each refusal aborted every update in flight on the run.
      assert.deepEqual(await updateErrors(suite.metricsPort), errorsBefore, 'updates refused (ResourceExhausted) or aborted (Unavailable) by the server');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
