import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';

/** test/histories in the source tree (this file runs from dist/test/helpers). */
export const historiesDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'histories');

/**
 * With RECORD_HISTORIES=1, save a finished workflow's history under test/histories/<name>.json, to be
 * committed and replayed by test/workflows/replay.test.ts. Otherwise does nothing.
 */
export async function recordHistory(handle: WorkflowHandle, name: string, address: string, runId?: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  // The Temporal CLI writes the standard JSON history format (what `temporal workflow show` gives users).
  const cli = findTemporalBinary('cli').path!;
  const json = execFileSync(
    cli,
    ['workflow', 'show', '--address', address, '--workflow-id', handle.workflowId, ...(runId ? ['--run-id', runId] : []), '--output', 'json'],
    { encoding: 'utf8' },
  );
  mkdirSync(historiesDir, { recursive: true });
  writeFileSync(join(historiesDir, `${name}.json`), json);
  // Workflow ids matter on replay (e.g. child workflow ids derive from them): keep them beside the histories.
  const idsPath = join(historiesDir, 'workflow-ids.json');
  const ids = existsSync(idsPath) ? JSON.parse(readFileSync(idsPath, 'utf8')) : {};
  ids[name] = handle.workflowId;
  writeFileSync(idsPath, `${JSON.stringify(ids, Object.keys(ids).sort(), 2)}\n`);
}

/**
 * `recordHistory` of a workflow that runs on (a login holds its token for the next call): once its history has
 * stopped growing at a completed workflow task, so the recording ends where a replay can take it up.
 */
export async function recordRunningHistory(handle: WorkflowHandle, name: string, address: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  let last = -1;
  for (let i = 0; i < 100; i++) {
    const events = (await handle.fetchHistory()).events ?? [];
    if (events.length === last && events.at(-1)?.workflowTaskCompletedEventAttributes) return recordHistory(handle, name, address);
    last = events.length;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`recordRunningHistory: the history of ${handle.workflowId} never settled at a completed workflow task`);
}

/** Workflow task failures in a history (nondeterminism, uncaught errors in handlers), as "<workflowId>#<eventId>: <message>". */
export async function workflowTaskFailures(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.workflowTaskFailedEventAttributes)
    .map((e) => `${handle.workflowId}#${e.eventId}: ${e.workflowTaskFailedEventAttributes?.failure?.message ?? '(no message)'}`);
}

/** The server's benign "new events arrived meanwhile, run the task again" (not a failure of workflow code). */
export const isUnhandledCommandRetry = (failure: string): boolean => failure.endsWith(': UnhandledCommand');

/** The timers a workflow started, in history order: their durations (ms) and how each ended. */
export async function timersOf(handle: WorkflowHandle): Promise<Array<{ ms: number; ended: 'fired' | 'canceled' | 'open' }>> {
  const events = (await handle.fetchHistory()).events ?? [];
  const ended = new Map<string, 'fired' | 'canceled'>();
  for (const e of events) {
    if (e.timerFiredEventAttributes?.timerId) ended.set(e.timerFiredEventAttributes.timerId, 'fired');
    if (e.timerCanceledEventAttributes?.timerId) ended.set(e.timerCanceledEventAttributes.timerId, 'canceled');
  }
  return events
    .filter((e) => e.timerStartedEventAttributes)
    .map((e) => {
      const a = e.timerStartedEventAttributes!;
      const d = a.startToFireTimeout;
      return { ms: Number(d?.seconds ?? 0) * 1000 + Math.round((d?.nanos ?? 0) / 1e6), ended: ended.get(a.timerId ?? '') ?? 'open' };
    });
}

/**
 * The input of every continue-as-new of a workflow, run by run from its first run (decoded JSON, with its
 * size in bytes as Temporal stored it): what each run carried into the next.
 */
export async function continueAsNewInputs(
  handle: WorkflowHandle & { firstExecutionRunId: string },
): Promise<Array<{ runId: string; bytes: number; input: any }>> {
  const out: Array<{ runId: string; bytes: number; input: any }> = [];
  // The handle of a started workflow knows its first run; follow the chain from there.
  let runId: string | undefined = handle.firstExecutionRunId;
  for (let i = 0; runId && i < 100_000; i++) {
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await handle.client.getHandle(handle.workflowId, runId).fetchHistory();
    const can = history.events?.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes;
    if (!can) break;
    const data = can.input?.payloads?.[0]?.data;
    out.push({ runId, bytes: data?.length ?? 0, input: data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined });
    runId = can.newExecutionRunId ?? undefined;
  }
  return out;
}
