/**
 * Telemetry of the worker process: Prometheus metrics (Temporal Core's own and durable-mcp's) when
 * DURABLE_MCP_METRICS_BIND names a host:port, through the SDK runtime's telemetry options.
 * durable-mcp's metrics: from workflow code through the workflow metric meter and the `durableMcpMetrics`
 * sink (src/telemetry/workflow-metrics.ts), from activities through the activity metric meter, and the
 * sessions-open gauge sampled from the worker's session pool.
 */
import { Runtime, type InjectedSinks, type RuntimeOptions } from '@temporalio/worker';
import type { MetricGauge, MetricUpDownCounter } from '@temporalio/common';
import { MetricDescriptions, MetricLabelValues, MetricNames } from './metric-names.js';
import type { SessionPool } from '../mcp/index.js';
import type { DurableMcpSinks } from './workflow-metrics.js';

export const METRICS_BIND_ENV = 'DURABLE_MCP_METRICS_BIND';

/** A telemetry setting in the environment is malformed. */
export class TelemetryConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TelemetryConfigError';
  }
}

/** The Prometheus bind address from DURABLE_MCP_METRICS_BIND (`host:port`), or undefined when unset or empty. */
export function metricsBindFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env[METRICS_BIND_ENV]?.trim();
  if (!raw) return undefined;
  const m = raw.match(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) {
    throw new TelemetryConfigError(`${METRICS_BIND_ENV} must be host:port (for example 0.0.0.0:9464 or 127.0.0.1:9464), got ${JSON.stringify(raw)}`);
  }
  return raw;
}

const s = 1000;
const min = 60 * s;
/** Bucket boundaries (ms) of durable-mcp's histograms: a person answers in seconds to days, a tool call in ms to minutes. */
export const HISTOGRAM_BUCKETS_MS: Record<string, number[]> = {
  [MetricNames.timeToAnswer]: [
    1 * s,
    10 * s,
    30 * s,
    1 * min,
    5 * min,
    15 * min,
    60 * min,
    4 * 60 * min,
    12 * 60 * min,
    24 * 60 * min,
    72 * 60 * min,
    7 * 24 * 60 * min,
  ],
  [MetricNames.toolCallDuration]: [5, 10, 25, 50, 100, 250, 500, 1 * s, 2.5 * s, 5 * s, 10 * s, 30 * s, 1 * min, 5 * min, 15 * min, 60 * min],
};

/** The runtime's telemetry options from the environment (metrics only when DURABLE_MCP_METRICS_BIND is set). */
export function telemetryOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeOptions['telemetryOptions'] {
  const bindAddress = metricsBindFromEnv(env);
  return bindAddress ? { metrics: { prometheus: { bindAddress, histogramBucketOverrides: HISTOGRAM_BUCKETS_MS } } } : undefined;
}

/** Runtime options of a durable-mcp process: telemetry from the environment, plus `extra`. */
export function runtimeOptionsFromEnv(extra: RuntimeOptions = {}, env: NodeJS.ProcessEnv = process.env): RuntimeOptions {
  const telemetryOptions = telemetryOptionsFromEnv(env);
  return { ...extra, ...(telemetryOptions ? { telemetryOptions: { ...extra.telemetryOptions, ...telemetryOptions } } : {}) };
}

/**
 * Whether the standard OTLP variables ask for traces (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT set, and OTEL_TRACES_EXPORTER not `none`). Checked before loading the
 * OpenTelemetry SDK (src/telemetry/tracing.ts), so that a process without tracing does not load it.
 */
export function tracesRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return !!endpoint && env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
}

let pendingCounter: MetricUpDownCounter | undefined;

/** The worker side of the workflows' `durableMcpMetrics` sink: an up-down counter of the runtime's meter. */
export function durableMcpSinks(): InjectedSinks<DurableMcpSinks> {
  return {
    durableMcpMetrics: {
      pendingChanged: {
        fn(info, delta, tags) {
          const meter = Runtime.instance().metricMeter;
          if (!meter.createUpDownCounter) return;
          pendingCounter ??= meter.createUpDownCounter(MetricNames.requestsPending, '1', MetricDescriptions[MetricNames.requestsPending]);
          pendingCounter.add(delta, { server: tags.server, kind: tags.kind, namespace: info.namespace, taskQueue: info.taskQueue });
        },
        // Replaying a history must not count its requests again.
        callDuringReplay: false,
      },
    },
  };
}

/**
 * Start every counter of durable-mcp at zero for the label sets known from the config (the configured servers, each
 * label's known values, this worker's namespace and task queue), as Prometheus advises for metrics with known labels:
 * a scrape of a worker that has done nothing then says `durable_mcp_requests_pending 0` for each server, not nothing.
 * The labels are those the SDK's meters add to what workflows and activities record (namespace, taskQueue, and
 * workflowType or activityType), so each zero is the series that a first request or call then counts on. Histograms
 * (time to answer, tool call duration) appear at their first observation: a meter cannot make an empty one.
 */
export function startMetricsAtZero(servers: readonly string[], namespace: string, taskQueue: string): void {
  const meter = Runtime.instance().metricMeter;
  if (!meter.createUpDownCounter) return;
  pendingCounter ??= meter.createUpDownCounter(MetricNames.requestsPending, '1', MetricDescriptions[MetricNames.requestsPending]);
  const resolved = meter.createCounter(MetricNames.requestsResolved, '1', MetricDescriptions[MetricNames.requestsResolved]);
  const rounds = meter.createCounter(MetricNames.mrtrRounds, '1', MetricDescriptions[MetricNames.mrtrRounds]);
  const released = meter.createCounter(MetricNames.callsReleased, '1', MetricDescriptions[MetricNames.callsReleased]);
  const { kind: kinds, outcome: outcomes, reason: reasons, roundKind: roundKinds, workflowType: workflowTypes } = MetricLabelValues;
  for (const server of servers) {
    for (const kind of kinds) pendingCounter.add(0, { server, kind, namespace, taskQueue });
    for (const workflowType of workflowTypes) {
      for (const kind of kinds) for (const outcome of outcomes) resolved.add(0, { server, kind, outcome, namespace, taskQueue, workflowType });
      for (const kind of roundKinds) rounds.add(0, { server, kind, namespace, taskQueue, workflowType });
    }
    for (const reason of reasons) released.add(0, { server, reason, namespace, taskQueue, activityType: 'callMcpTool' });
  }
}

/**
 * Keep the sessions-open gauge (by server) current from the pool, every `everyMs`; returns the stop function.
 * Sessions open = idle + leased sessions of the worker's pool; 0 for each of `servers` that has none yet.
 */
export function watchSessions(pool: SessionPool, taskQueue: string, everyMs = 1000, servers: readonly string[] = []): () => void {
  let gauge: MetricGauge | undefined;
  const sample = () => {
    gauge ??= Runtime.instance().metricMeter.createGauge(MetricNames.sessionsOpen, 'int', '1', MetricDescriptions[MetricNames.sessionsOpen]);
    const stats = pool.stats();
    // A configured server without a session yet is 0, not absent.
    for (const server of servers) if (!stats[server]) gauge.set(0, { server, taskQueue });
    for (const [server, st] of Object.entries(stats)) gauge.set(st.idle + st.leased, { server, taskQueue });
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    sample();
  };
}
