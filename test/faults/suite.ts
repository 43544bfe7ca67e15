/** The fault suite's case interface, the captured SDK log, and the shared Temporal dev server. */
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogEntry } from '@temporalio/worker';
import { createWorker, type DurableMcpWorker } from '../../src/worker.js';
import { DevServer } from './lib.js';

export interface SharedEnv {
  server: DevServer;
  client: Client;
  connection: Connection;
  native: NativeConnection;
}

export interface CaseContext {
  readonly id: string;
  /** Unique string carried by every process this case starts (see taggedPids). */
  readonly tag: string;
  /** A fresh directory for this case; its path contains the tag. */
  readonly dir: string;
  readonly seed: number;
  readonly sample: boolean;
  /** The shared dev server (started on first use). */
  shared(): Promise<SharedEnv>;
  /** Run at the end of the case (also on failure or timeout), last registered first. */
  defer(fn: () => unknown): void;
  /** A line of evidence printed under the case's outcome. */
  note(line: string): void;
  /** How far the case got, asked for when the run is interrupted (SIGTERM, SIGINT) while the case runs. */
  progress(describe: () => string): void;
}

export interface FaultCase {
  id: string;
  title: string;
  /** Cases with the same group run concurrently (their outcomes are still printed in order). */
  group?: string;
  timeoutMs(sample: boolean): number;
  /** Resolves with a one-line summary; throws (e.g. an AssertionError) on failure. */
  run(ctx: CaseContext): Promise<string>;
}

// ---------------------------------------------------------------------------
// SDK log capture: workflow `log.warn` (e.g. "answer signal dropped") and Core warnings land here.
// ---------------------------------------------------------------------------

export const captured: LogEntry[] = [];
let installed = false;

export function installCapturingRuntime(verbose: boolean): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      captured.push(entry);
      if (captured.length > 20_000) captured.splice(0, 10_000);
      if (verbose) process.stderr.write(`  [sdk ${entry.level}] ${entry.message} ${entry.meta ? JSON.stringify(entry.meta).slice(0, 300) : ''}\n`);
    }),
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
    shutdownSignals: [],
  });
}

/** An in-process durable-mcp worker on the shared server, shut down (and awaited) when the case ends. */
export async function inProcessWorker(ctx: CaseContext, taskQueue: string, mcpConfig: Record<string, unknown>): Promise<DurableMcpWorker> {
  const { native } = await ctx.shared();
  const w = await createWorker({ connection: native, namespace: 'default', taskQueue, mcpConfig });
  const running = w.run();
  ctx.defer(async () => {
    w.shutdown();
    await running.catch(() => undefined);
  });
  return w;
}

export { workflowTaskFailures } from '../helpers/history.js';

/**
 * A workflow task failure raised by the Temporal server's Update protocol, not by workflow code: the
 * server delivered an Update it had already recorded as Completed, the workflow's validator rejected it as
 * a duplicate, and the server refused that rejection. The next workflow task succeeds. Seen after worker
 * SIGKILLs while a client keeps re-sending the same update id; reported, not counted as a failure.
 */
export const isUpdateProtocolRace = (failure: string) =>
  /BadUpdateWorkflowExecutionMessage: invalid state transition attempted for Update .*while in state Completed/.test(failure);

/** The message at the bottom of an error's cause chain, and the chain's messages. */
export function causeChain(err: unknown): string[] {
  const out: string[] = [];
  let e = err as { message?: string; cause?: unknown } | undefined;
  for (let i = 0; e && i < 10; i++) {
    out.push(String(e.message ?? e));
    e = e.cause as typeof e;
  }
  return out;
}

/** What each activity attempt of a workflow ended with: "released (reason)", "completed", "failed …", "timed out". */
export async function activityOutcomes(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .filter((e) => e.activityTaskCompletedEventAttributes || e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes)
    .map((e) => {
      if (e.activityTaskFailedEventAttributes) return `failed "${e.activityTaskFailedEventAttributes.failure?.message?.slice(0, 80)}"`;
      if (e.activityTaskTimedOutEventAttributes) return `timed out (${e.activityTaskTimedOutEventAttributes.failure?.message?.slice(0, 60) ?? ''})`;
      const data = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
      const out = data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
      return out?.status === 'released' ? `released (${out.reason})` : String(out?.status);
    });
}

/** Strip terminal colour codes from captured process output. */
export const plain = (s: string) => s.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
