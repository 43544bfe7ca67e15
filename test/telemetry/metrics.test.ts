/**
 * Prometheus metrics: a worker process with DURABLE_MCP_METRICS_BIND set (this test file runs in its own
 * process, so the runtime installed here is the one every worker of the file uses), a real dev server and
 * the stdio fixture server. The endpoint is scraped while requests wait, are answered and expire.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { METRICS_BIND_ENV, metricsBindFromEnv, runtimeOptionsFromEnv, TelemetryConfigError } from '../../src/telemetry/metrics.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { submitAnswerUpdate } from '../../src/workflows/messages.js';
import { modernServerPath } from '../fixtures/paths.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';
import { freePort } from '../helpers/ports.js';

const bind = `127.0.0.1:${await freePort()}`;
// Installed before the suite's helpers try to install their quiet runtime (which then finds this one).
Runtime.install(runtimeOptionsFromEnv({ logger: new DefaultLogger('WARN'), shutdownSignals: [] }, { [METRICS_BIND_ENV]: bind }));

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(): Promise<Sample[]> {
  const res = await fetch(`http://${bind}/metrics`);
  assert.equal(res.status, 200);
  const out: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** Sum of the samples whose name ends with `suffix` (any runtime prefix) and whose labels include `labels`. */
function total(samples: Sample[], suffix: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => (s.name === suffix || s.name.endsWith(`_${suffix}`)) && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

describe('metrics (DURABLE_MCP_METRICS_BIND)', () => {
  const suite = suiteEnvironment({
    name: 'metrics',
    extraServers: { mfx: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: join(tempDir(), 'modern.jsonl') } } },
  });
  const start = (workflowId: string, elicitation: { expiresIn?: number; holdFor?: number }) =>
    suite.env.client.workflow.start(mcpToolCall, { taskQueue: suite.taskQueue, workflowId, args: [{ server: 'fx', tool: 'ask_name', elicitation }] });

  it('a scrape of a worker that has done nothing lists each counter and gauge at 0 for each configured server', async () => {
    const samples = await scrape();
    const mine = (name: string, labels: Record<string, string>) =>
      samples.filter((x) => x.name === name && x.labels.taskQueue === suite.taskQueue && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
    for (const server of ['fx', 'mfx']) {
      for (const kind of ['input', 'authorization']) {
        const pending = mine('durable_mcp_requests_pending', { server, kind, namespace: 'default' });
        assert.deepEqual(
          pending.map((x) => x.value),
          [0],
          `durable_mcp_requests_pending{server="${server}",kind="${kind}"} is 0 before any request`,
        );
        for (const outcome of ['accept', 'decline', 'cancel', 'expired'])
          assert.deepEqual(
            mine('durable_mcp_requests_resolved', { server, kind, outcome, workflowType: 'mcpToolCall' }).map((x) => x.value),
            [0],
            outcome,
          );
      }
      for (const reason of ['hold-expired', 'server-gave-up', 'session-needed', 'worker-shutdown', 'workflow-unreachable'])
        assert.deepEqual(
          mine('durable_mcp_calls_released', { server, reason, activityType: 'callMcpTool' }).map((x) => x.value),
          [0],
          reason,
        );
      for (const kind of ['input', 'request-state', 'url-error'])
        assert.deepEqual(
          mine('durable_mcp_mrtr_rounds', { server, kind, workflowType: 'mcpToolCall' }).map((x) => x.value),
          [0],
          kind,
        );
      assert.equal(mine('durable_mcp_sessions_open', { server }).length, 1, `sessions open of ${server}`);
    }
  });

  it('a bad DURABLE_MCP_METRICS_BIND is an error naming the variable and the value', () => {
    assert.throws(
      () => metricsBindFromEnv({ [METRICS_BIND_ENV]: 'localhost' }),
      (err: Error) => err instanceof TelemetryConfigError && /DURABLE_MCP_METRICS_BIND must be host:port.*"localhost"/.test(err.message),
    );
    assert.throws(() => metricsBindFromEnv({ [METRICS_BIND_ENV]: '0.0.0.0:99999' }), /got "0.0.0.0:99999"/);
    assert.equal(metricsBindFromEnv({}), undefined);
    assert.equal(metricsBindFromEnv({ [METRICS_BIND_ENV]: '0.0.0.0:9464' }), '0.0.0.0:9464');
  });

  it('pending goes 0 → 1 → 0 around an answer, time to answer counts it, and an expiry is counted as expired', async () => {
    const fx = { server: 'fx', kind: 'input' };
    const before = await scrape();
    assert.equal(total(before, 'durable_mcp_requests_pending', fx), 0, 'nothing pending before');
    const answeredBefore = total(before, 'durable_mcp_time_to_answer_count', fx);
    const acceptedBefore = total(before, 'durable_mcp_requests_resolved', { ...fx, outcome: 'accept' });
    const expiredBefore = total(before, 'durable_mcp_requests_resolved', { ...fx, outcome: 'expired' });

    const handle = await start(`metrics-answer-${Date.now()}`, { holdFor: 10 * 60_000 });
    const [request] = await waitForPending(handle);
    await eventually(async () => total(await scrape(), 'durable_mcp_requests_pending', fx) === 1, 'durable_mcp_requests_pending 1', 30_000);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    assert.equal((await handle.result()).output, 'hello Ada');
    const after = await eventually(
      async () => {
        const s = await scrape();
        return total(s, 'durable_mcp_requests_pending', fx) === 0 ? s : undefined;
      },
      'durable_mcp_requests_pending back to 0',
      30_000,
    );
    assert.equal(total(after, 'durable_mcp_time_to_answer_count', fx), answeredBefore + 1, 'one more answer timed');
    assert.equal(total(after, 'durable_mcp_requests_resolved', { ...fx, outcome: 'accept' }), acceptedBefore + 1, 'one more accept');
    assert.ok(
      total(after, 'durable_mcp_tool_call_duration_count', { server: 'fx', tool: 'ask_name', outcome: 'completed' }) >= 1,
      'the completed attempt was timed',
    );
    // The gauge is sampled from the pool (every second).
    await eventually(
      async () => total(await scrape(), 'durable_mcp_sessions_open', { server: 'fx' }) >= 1,
      'the fixture session counted open (kept idle by the pool)',
      30_000,
    );

    // Released at once, expires after a second: counted as expired, not as an answer.
    const expiring = await start(`metrics-expire-${Date.now()}`, { holdFor: 0, expiresIn: 1000 });
    assert.equal((await expiring.result()).output, 'cancelled');
    const expired = await eventually(
      async () => {
        const s = await scrape();
        return total(s, 'durable_mcp_requests_resolved', { ...fx, outcome: 'expired' }) === expiredBefore + 1 ? s : undefined;
      },
      'one expired request counted',
      30_000,
    );
    assert.equal(total(expired, 'durable_mcp_requests_pending', fx), 0);
    assert.equal(total(expired, 'durable_mcp_time_to_answer_count', fx), answeredBefore + 1, 'an expiry is not an answer');
    assert.ok(total(expired, 'durable_mcp_calls_released', { server: 'fx', reason: 'hold-expired' }) >= 1, 'the released call was counted with its reason');
    assert.ok(
      expired.some((s) => /^temporal_/.test(s.name) && !s.name.includes('durable_mcp')),
      "Temporal Core's own metrics are on the same endpoint",
    );
    if (process.env.DUMP_METRICS)
      console.log(
        expired
          .filter((s) => s.name.includes('durable_mcp'))
          .map((s) => `${s.name} ${JSON.stringify(s.labels)} ${s.value}`)
          .join('\n'),
      );
  });

  it('a modern-era (MRTR) call counts its rounds that asked for input, and its round attempts as input_required', async () => {
    const rounds = (samples: Sample[]) =>
      total(samples, 'durable_mcp_mrtr_rounds', { server: 'mfx', kind: 'input' }) +
      total(samples, 'durable_mcp_mrtr_rounds_total', { server: 'mfx', kind: 'input' });
    const before = rounds(await scrape());
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `metrics-mrtr-${Date.now()}`,
      args: [{ server: 'mfx', tool: 'ask_name' }],
    });
    const [request] = await waitForPending(handle);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
    assert.equal((await handle.result()).output, 'Hello Ada');
    const after = await eventually(
      async () => {
        const s = await scrape();
        return rounds(s) === before + 1 ? s : undefined;
      },
      'one more MRTR round counted (round 1 asked; round 2 completed)',
      30_000,
    );
    assert.ok(
      total(after, 'durable_mcp_tool_call_duration_count', { server: 'mfx', tool: 'ask_name', outcome: 'input_required' }) >= 1,
      'the round that asked was timed as input_required',
    );
    assert.ok(
      total(after, 'durable_mcp_requests_resolved', { server: 'mfx', kind: 'input', outcome: 'accept' }) >= 1,
      "the round's request counted as accepted",
    );
  });

  it('approvals are counted by server, tool and outcome, exposed as exactly durable_mcp_approvals: one approved, one declined', async () => {
    // The exact name a scrape shows (docs/operating.md names it): no runtime prefix, no `_total` suffix.
    const count = (samples: Sample[], outcome: string) =>
      samples
        .filter(
          (x) =>
            x.name === 'durable_mcp_approvals' &&
            x.labels.taskQueue === suite.taskQueue &&
            x.labels.server === 'fx' &&
            x.labels.tool === 'transfer' &&
            x.labels.outcome === outcome &&
            x.labels.workflowType === 'mcpToolCall',
        )
        .reduce((a, x) => a + x.value, 0);
    const before = await scrape();
    for (const [i, ok] of [true, false].entries()) {
      const handle = await suite.env.client.workflow.start(mcpToolCall, {
        taskQueue: suite.taskQueue,
        workflowId: `metrics-approval-${i}-${Date.now()}`,
        args: [{ server: 'fx', tool: 'transfer', arguments: { to: 'bob', amount: 1 }, approval: 'always' }],
      });
      const [request] = await waitForPending(handle);
      await handle.executeUpdate(submitAnswerUpdate, { args: [ok ? { id: request.id, ok: true } : { id: request.id, ok: false, reason: 'declined' }] });
      await handle.result();
    }
    await eventually(
      async () => {
        const s = await scrape();
        return count(s, 'approved') === count(before, 'approved') + 1 && count(s, 'declined') === count(before, 'declined') + 1;
      },
      'one approval approved and one declined counted',
      30_000,
    );
    const text = await (await fetch(`http://${bind}/metrics`)).text();
    assert.match(text, /^# TYPE durable_mcp_approvals counter$/m, 'a counter named durable_mcp_approvals');
    assert.deepEqual(
      [...new Set((await scrape()).filter((x) => /approvals/.test(x.name)).map((x) => x.name))],
      ['durable_mcp_approvals'],
      'no other name (approvals_total, durable_mcp_approvals_total) is exposed',
    );
  });
});
