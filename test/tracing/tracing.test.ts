/**
 * Traces: a worker with tracing on (an in-process exporter instead of OTLP), a client with the tracing
 * interceptor, a real dev server and the stdio fixture server. One call that asks a person: the trace runs
 * client → workflow → activity → MCP tools/call → elicitation, and the MCP server gets the traceparent (in the
 * modern era on every round).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { tracingClientInterceptors, tracingFromEnv, type TracingSetup } from '../../src/telemetry/tracing.js';
import type { DurableMcpWorker } from '../../src/worker.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { submitAnswerUpdate } from '../../src/workflows/messages.js';
import { modernServerPath, readFixtureLog } from '../fixtures/paths.js';
import { createLocalEnv, eventually, fixtureConfig, startWorker, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

describe('traces (OpenTelemetry)', () => {
  const exporter = new InMemorySpanExporter();
  const setup: TracingSetup = { spanProcessor: new SimpleSpanProcessor(exporter), resource: new Resource({ 'service.name': 'durable-mcp-test' }) };
  const taskQueue = uniqueTaskQueue('tracing');
  const logPath = join(tempDir(), 'fixture.jsonl');
  const modernLogPath = join(tempDir(), 'modern-fixture.jsonl');
  let env: TestWorkflowEnvironment;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  before(async () => {
    env = await createLocalEnv();
    worker = await startWorker(env, {
      taskQueue,
      mcpConfig: fixtureConfig(logPath, { mfx: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: modernLogPath } } }),
      tracing: setup,
    });
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('nothing is set up when no OTLP variable is set', () => {
    assert.equal(tracingFromEnv({}), undefined);
    assert.equal(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), undefined);
    assert.ok(tracingFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }));
  });

  it('one trace: client → workflow → activity → MCP tools/call → elicitation (with its request id), and the server gets the traceparent', async () => {
    const client = new Client({
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      interceptors: { workflow: tracingClientInterceptors(setup) },
    });
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
    const client = new Client({
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      interceptors: { workflow: tracingClientInterceptors(setup) },
    });
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
});
