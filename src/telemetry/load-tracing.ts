/**
 * Loads the OpenTelemetry side of tracing (./tracing.ts) when tracing is asked for. Its
 * `@temporalio/interceptors-opentelemetry` is an optional peer dependency: without it, tracing fails with what to install.
 */
import { TelemetryConfigError } from './metrics.js';

export type Tracing = typeof import('./tracing.js');

export async function loadTracing(): Promise<Tracing> {
  try {
    return await import('./tracing.js');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((err as Error).message).includes('@temporalio/interceptors-opentelemetry'))
      throw new TelemetryConfigError(
        'OpenTelemetry tracing is on (an OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variable, or the `tracing` option) but ' +
          '@temporalio/interceptors-opentelemetry is not installed: run `npm install @temporalio/interceptors-opentelemetry` ' +
          '(the version of your other @temporalio packages), or unset those variables.',
      );
    throw err;
  }
}
