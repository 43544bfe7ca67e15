/**
 * Traces: a worker with tracing on (an in-process exporter instead of OTLP), a client with the tracing
 * interceptor, a real dev server and the stdio fixture server. One call that asks a person: the trace runs
 * client → workflow → activity → MCP tools/call → elicitation, and the MCP server gets the traceparent (in the
 * modern era on every round). Where things go: the logs (every level the SDK logs, captured) and the spans of
 * a call answered over two rounds carry neither an answer's content nor the server's `requestState`.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { tracingClientInterceptors, tracingFromEnv, type TracingSetup } from '../../src/telemetry/tracing.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { answerSignal, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { captureRuntimeLogs, logText, eventually, tempDir, uniqueTaskQueue, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

// Every log line of this process, kept to search.
const logged = captureRuntimeLogs();

/** A span as text: its name, attributes, events, links and status (what an exporter sends). */
const spanText = (s: ReadableSpan): string =>
  JSON.stringify({
    name: s.name,
    attributes: s.attributes,
    events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    links: s.links,
    status: s.status,
  });

describe('traces (OpenTelemetry)', () => {
  const exporter = new InMemorySpanExporter();
  const setup: TracingSetup = { spanProcessor: new SimpleSpanProcessor(exporter), resource: new Resource({ 'service.name': 'durable-mcp-test' }) };
  const taskQueue = uniqueTaskQueue('tracing');
  const logPath = join(tempDir(), 'fixture.jsonl');
  const modernLogPath = join(tempDir(), 'modern-fixture.jsonl');
  const suite = suiteEnvironment({
    taskQueue,
    logPath,
    extraServers: { mfx: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: modernLogPath } } },
    tracing: setup,
  });
  /** A client of the environment with the tracing client interceptors. */
  const tracedClient = () =>
    new Client({ connection: suite.env.connection, namespace: suite.namespace, interceptors: { workflow: tracingClientInterceptors(setup) } });

  it('nothing is set up when no OTLP variable is set', () => {
    assert.equal(tracingFromEnv({}), undefined);
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), undefined);
    assert.ok(tracingFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }));
  });

  it('one trace: client → workflow → activity → MCP tools/call → elicitation (with its request id), and the server gets the traceparent', async () => {
    const client = tracedClient();
    const handle = await client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `traced-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { holdFor: 10 * 60_000 } }],
    });
    const [request] = await waitForPending(handle);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    assert.equal((await handle.result()).output, 'hello Ada');

    const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
    const spans = await eventually(
      () => {
        const all = exporter.getFinishedSpans();
        return byName(all, 'RunWorkflow:mcpToolCall').length > 0 && byName(all, 'mcp elicitation').length > 0 ? all : undefined;
      },
      'the workflow and elicitation spans exported',
      30_000,
    );
    const one = (name: string) => {
      const found = byName(spans, name);
      assert.equal(found.length, 1, `one span ${name} (spans: ${spans.map((s) => s.name).join(', ')})`);
      return found[0];
    };
    const clientSpan = one('StartWorkflow:mcpToolCall');
    const workflowSpan = one('RunWorkflow:mcpToolCall');
    const scheduled = one('StartActivity:callMcpTool');
    const activity = one('RunActivity:callMcpTool');
    const mcpCall = one('mcp tools/call fx/ask_name');
    const elicitation = one('mcp elicitation');
    const traceId = clientSpan.spanContext().traceId;
    for (const s of [workflowSpan, scheduled, activity, mcpCall, elicitation])
      assert.equal(s.spanContext().traceId, traceId, `${s.name} is in the client's trace`);
    const chain: Array<[ReadableSpan, ReadableSpan]> = [
      [workflowSpan, clientSpan],
      [scheduled, workflowSpan],
      [activity, scheduled],
      [mcpCall, activity],
      [elicitation, mcpCall],
    ];
    for (const [child, parent] of chain) assert.equal(child.parentSpanId, parent.spanContext().spanId, `${child.name} is a child of ${parent.name}`);
    assert.equal(elicitation.attributes['durable_mcp.request_id'], request.id);
    assert.equal(elicitation.attributes['durable_mcp.outcome'], 'answered');

    const call = readFixtureLog(logPath).find((e) => e.event === 'call' && e.tool === 'ask_name');
    const traceparent = (call?.meta as { traceparent?: string } | undefined)?.traceparent;
    assert.equal(traceparent?.split('-')[1], traceId, 'the MCP server got the trace id in _meta.traceparent');
    assert.equal(traceparent?.split('-')[2], mcpCall.spanContext().spanId, '… with the tools/call span as parent');
  });

  it("modern era (MRTR): each round is its own tools/call span, and each round's tools/call carries its traceparent in _meta", async () => {
    const client = tracedClient();
    const handle = await client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `traced-modern-${Date.now()}`,
      args: [{ server: 'mfx', tool: 'ask_name' }],
    });
    const [request] = await waitForPending(handle);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    assert.equal((await handle.result()).output, 'Hello Ada');

    const spans = await eventually(
      () => {
        const all = exporter.getFinishedSpans();
        return all.filter((s) => s.name === 'mcp tools/call mfx/ask_name').length === 2 ? all : undefined;
      },
      'both rounds exported',
      30_000,
    );
    const rounds = spans.filter((s) => s.name === 'mcp tools/call mfx/ask_name');
    const traceId = rounds[0].spanContext().traceId;
    assert.equal(rounds[1].spanContext().traceId, traceId, 'both rounds are in one trace');
    const calls = readFixtureLog(modernLogPath).filter((e) => e.event === 'tool' && e.tool === 'ask_name');
    assert.equal(calls.length, 2, 'two rounds reached the server');
    const parents = calls.map((c) => String(c.traceparent ?? '').split('-'));
    for (const p of parents) assert.equal(p[1], traceId, 'each round got the trace id in _meta.traceparent');
    assert.deepEqual(
      new Set(parents.map((p) => p[2])),
      new Set(rounds.map((r) => r.spanContext().spanId)),
      "… each with its own round's tools/call span as parent",
    );
  });

  it("logs and spans of a call answered over two rounds carry neither an answer's content nor the requestState (nor a rejected answer's)", async () => {
    const client = tracedClient();
    const name = `Zq${Math.random().toString(36).slice(2, 10)}`;
    const rejected = `Rj${Math.random().toString(36).slice(2, 10)}`;
    const workflowId = `traced-private-${Date.now()}`;
    const handle = await client.workflow.start(mcpToolCall, { taskQueue, workflowId, args: [{ server: 'mfx', tool: 'two_rounds' }] });
    const [first] = await waitForPending(handle);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: first.id, ok: true, data: { name } }] });
    const second = await eventually(async () => (await waitForPending(handle)).find((r) => r.id !== first.id), 'the second round');
    // A rejected answer (a string where the schema wants an integer) is logged as dropped: without its value.
    const before = logged.length;
    await handle.signal(answerSignal, { id: second.id, ok: true, data: { age: rejected } });
    const dropped = await eventually(() => logged.slice(before).find((e) => e.message === 'answer signal dropped'), 'the dropped signal logged');
    assert.equal(dropped.meta?.type, 'InvalidAnswer');
    assert.equal(dropped.meta?.id, second.id);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: second.id, ok: true, data: { age: 36 } }] });
    assert.equal((await handle.result()).output, `${name} is 36`);

    const rounds = readFixtureLog(modernLogPath).filter((e) => e.event === 'tool' && e.tool === 'two_rounds');
    const requestState = rounds.map((r) => r.requestState).find((v): v is string => typeof v === 'string');
    assert.equal(requestState, JSON.stringify({ name }), 'the server got its requestState back (it carries the first answer)');
    const spans = await eventually(
      () => (exporter.getFinishedSpans().filter((s) => s.name === 'mcp tools/call mfx/two_rounds').length === 3 ? exporter.getFinishedSpans() : undefined),
      'the three rounds exported',
      30_000,
    );
    const texts = [...spans.map(spanText), ...logged.map(logText)];
    assert.ok(logged.length > 10 && spans.length > 10, `something was logged and traced (${logged.length} log lines, ${spans.length} spans)`);
    for (const secret of [name, rejected, requestState!]) {
      const found = texts.filter((t) => t.includes(secret));
      assert.deepEqual(found, [], `no log line or span holds ${JSON.stringify(secret)}`);
    }
  });
});
