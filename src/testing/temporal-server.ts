/**
 * The Temporal server of a test environment: the local dev server (the Temporal CLI) or the Java time-skipping
 * test server, from the binaries `src/cli/temporal-binaries.ts` finds, with durable-mcp's search attribute
 * registered on request; and the quiet Temporal runtime (warnings and errors only) that tests log with.
 * `createTestEnvironment` starts its server here, as do the repository's own tests and benchmarks.
 */
import type { ClientOptions } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { dataConverterOf, type EncryptionCodec } from '../codec/index.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { findTemporalBinary } from '../cli/temporal-binaries.js';
import { SEARCH_ATTRIBUTES } from '../workflows/visibility.js';

export type TestLogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** Install a Temporal runtime that logs at `level` (default `WARN`), unless one is installed already. */
export function installQuietRuntime(level?: TestLogLevel): void {
  try {
    Runtime.install({ logger: new DefaultLogger(level ?? 'WARN'), shutdownSignals: [] });
  } catch {
    // a runtime was installed already (by the test file or an earlier environment)
  }
}

export interface TemporalServerOptions {
  /** The time-skipping test server instead of the local dev server. */
  timeSkipping?: boolean;
  /** Namespace (local dev server only; default `default`). */
  namespace?: string;
  /** Register durable-mcp's search attributes (SEARCH_ATTRIBUTES: DurableMcpAwaitingInput and the listing's; local dev server only). */
  searchAttributes?: boolean;
  /** The dev server's SQLite file (local dev server only; default in memory). */
  dbFilename?: string;
  /** Options of the environment's client, e.g. its interceptors. */
  client?: ClientOptions;
  /** The payload codec of the environment's client (`env.client`); workers take theirs from `createWorker`. */
  encryption?: EncryptionCodec;
  /** Whether the SDK may download a binary this project does not find (`findTemporalBinary`'s default when unset). */
  allowDownload?: boolean;
  /** More flags for the dev server (local dev server only), e.g. `['--metrics-port', '9090']` or `--dynamic-config-value`. */
  serverArgs?: string[];
}

/** Start a Temporal server for tests; `teardown()` stops it. */
export async function startTemporalServer(options: TemporalServerOptions = {}): Promise<TestWorkflowEnvironment> {
  const find = options.allowDownload === undefined ? {} : { allowDownload: options.allowDownload };
  const dataConverter = dataConverterOf(options.encryption, options.client?.dataConverter);
  const client = options.client || dataConverter ? { ...options.client, ...(dataConverter ? { dataConverter } : {}) } : undefined;
  if (options.timeSkipping) {
    return TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: findTemporalBinary('test-server', find).executable },
      ...(client ? { client } : {}),
    });
  }
  return TestWorkflowEnvironment.createLocal({
    ...(client ? { client } : {}),
    server: {
      executable: findTemporalBinary('cli', find).executable,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.dbFilename !== undefined ? { dbFilename: options.dbFilename } : {}),
      ...(options.searchAttributes ? { searchAttributes: SEARCH_ATTRIBUTES.map((a) => a.key) } : {}),
      ...(options.serverArgs?.length ? { extraArgs: options.serverArgs } : {}),
    },
  });
}
