/**
 * durable-mcp's spans in activities: one per MCP `tools/call`, and one per elicitation inside it (with the
 * request id). Through the global OpenTelemetry API: without a registered tracer provider (no OTLP variable
 * set, see src/telemetry/tracing.ts) the spans are no-ops and no `traceparent` is sent.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';

const tracer = () => trace.getTracer('durable-mcp');

/**
 * Run `fn` (the `tools/call`) inside a span. `fn` gets the trace context to put in the request's `_meta`
 * (`traceparent`, absent when nothing is traced) and the span's context, the parent of its elicitations.
 */
export function tracedToolCall<T>(
  server: string,
  tool: string,
  fn: (meta: Record<string, string> | undefined, spanContext: Context) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(
    `mcp tools/call ${server}/${tool}`,
    { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'mcp', 'rpc.method': 'tools/call', 'mcp.server': server, 'mcp.tool': tool } },
    async (span) => {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      try {
        return await fn(Object.keys(carrier).length > 0 ? carrier : undefined, context.active());
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A span for one elicitation of a tool call (child of the call's span): ended with how it was resolved. */
export function elicitationSpan(parent: Context | undefined, requestId: string, kind: string): { end(outcome: string): void } {
  const span: Span = tracer().startSpan(
    'mcp elicitation',
    { attributes: { 'durable_mcp.request_id': requestId, 'durable_mcp.request_kind': kind } },
    parent ?? context.active(),
  );
  return {
    end(outcome: string) {
      span.setAttribute('durable_mcp.outcome', outcome);
      span.end();
    },
  };
}
