/**
 * OpenTelemetry traces: client → workflow → activity through `@temporalio/interceptors-opentelemetry`, plus
 * durable-mcp's own spans for each MCP tool call and each elicitation (src/telemetry/tool-call-tracing.ts), whose
 * trace context reaches the MCP server in the `_meta.traceparent` of `tools/call`.
 *
 * Exported over OTLP/HTTP when one of the standard variables OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (headers, timeout etc. from the other OTEL_EXPORTER_OTLP_*
 * variables; OTEL_SERVICE_NAME names the service, default `durable-mcp`; OTEL_TRACES_EXPORTER=none turns it
 * off). With none of them set nothing is set up and nothing is exported.
 */
import { createRequire } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import { tracesRequested } from './metrics.js';

export interface TracingSetup {
  /** Where finished spans go (an OTLP batch processor from the environment, or a test's in-memory one). */
  spanProcessor: SpanProcessor;
  resource: Resource;
}

/** The module with the workflow interceptors, bundled into the traced workflow bundle. */
export const workflowTracingModule = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** Tracing from the standard OTLP environment variables, or undefined when none is set (nothing is exported). */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): TracingSetup | undefined {
  if (!tracesRequested(env)) return undefined;
  return {
    // The exporter reads the endpoint, headers and timeout from the same variables.
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
    resource: new Resource({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'durable-mcp' }),
  };
}

let installed: BasicTracerProvider | undefined;

/**
 * Register the global tracer provider (once per process), with an async-local context manager (so spans of
 * an activity nest) and the W3C trace-context propagator (so `traceparent` reaches MCP servers).
 */
export function installTracing(setup: TracingSetup): BasicTracerProvider {
  if (installed) return installed;
  const provider = new BasicTracerProvider({ resource: setup.resource, spanProcessors: [setup.spanProcessor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  installed = provider;
  return provider;
}

/** Worker options that trace activities, the worker's own client calls and (with the traced bundle) workflows. */
export function tracingWorkerOptions(setup: TracingSetup): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  installTracing(setup);
  return {
    interceptors: {
      client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
      workflowModules: [workflowTracingModule],
    },
    sinks: { exporter: makeWorkflowExporter(setup.spanProcessor, setup.resource) },
  };
}

/** Client interceptors that start a trace at the client (the CLI and client helpers use them when tracing is on). */
export function tracingClientInterceptors(setup: TracingSetup | undefined = tracingFromEnv()): WorkflowClientInterceptor[] {
  if (!setup) return [];
  installTracing(setup);
  return [new OpenTelemetryWorkflowClientInterceptor()];
}
