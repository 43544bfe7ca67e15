/**
 * The shape of a workflow history (issue 42, plan §2.5): its events in order as one line each, with the event type and
 * what names the command (activity type, timer duration, signal/update name, marker id, child workflow type, upserted
 * key names), without ids, times, identities or payload values. Two recordings of the same path with the same workflow
 * code have the same shape; a refactor whose re-recorded histories keep their shape changes no command, so it needs no
 * `Versions` entry (src/workflows/versions.ts).
 *
 * The workflow task events (scheduled, started, completed, timed out) are left out: how many tasks a run takes depends
 * on timing, not on the workflow code. A failed workflow task stays, with its cause.
 *
 * Usage (from the built tree): `node dist/scripts/history-shape.js <history.json>` prints the shape;
 * `node dist/scripts/history-shape.js <history.json> <other.json>` prints the lines that differ and exits 1 if any do.
 * A history is Temporal's JSON format (`temporal workflow show --output json`, test/histories/*.json); another file
 * exits 2, naming it.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

type Json = Record<string, any>;

const TIMING_ONLY = new Set(['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED', 'WORKFLOW_TASK_TIMED_OUT']);

/** The JSON of a `json/plain` payload, or undefined (another encoding, e.g. a codec's, or no payload). */
function payloadJson(payload: Json | undefined): unknown {
  if (!payload?.data) return undefined;
  try {
    const encoding = Buffer.from(String(payload.metadata?.encoding ?? ''), 'base64').toString('utf8');
    if (encoding !== 'json/plain') return undefined;
    return JSON.parse(Buffer.from(String(payload.data), 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A marker's id: a patch's id (`core_patch`), a local activity's type (`core_local_activity`), else its name alone. */
function markerId(a: Json): string {
  const name = String(a.markerName ?? '');
  if (name === 'core_patch') {
    const data = payloadJson(a.details?.['patch-data']?.payloads?.[0]) as Json | undefined;
    return `${name} ${data?.id ?? '?'}`;
  }
  if (name === 'core_local_activity') {
    const data = payloadJson(a.details?.data?.payloads?.[0]) as Json | undefined;
    return `${name} ${data?.activity_type ?? '?'}`;
  }
  return name;
}

const keys = (fields: Json | undefined) =>
  Object.keys(fields ?? {})
    .sort()
    .join(',');

/** What names one event's command or message, by its event type (without the `EVENT_TYPE_` prefix). */
function detailOf(type: string, event: Json): string {
  const attributes = Object.entries(event).find(([k]) => k.endsWith('EventAttributes'))?.[1] as Json | undefined;
  const a = attributes ?? {};
  switch (type) {
    case 'WORKFLOW_EXECUTION_STARTED':
    case 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW':
    case 'START_CHILD_WORKFLOW_EXECUTION_INITIATED':
      return a.workflowType?.name ?? '';
    case 'ACTIVITY_TASK_SCHEDULED':
      return a.activityType?.name ?? '';
    case 'TIMER_STARTED':
      return a.startToFireTimeout ?? '';
    case 'WORKFLOW_EXECUTION_SIGNALED':
    case 'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED':
      return a.signalName ?? '';
    case 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED':
      return a.acceptedRequest?.input?.name ?? '';
    case 'WORKFLOW_EXECUTION_UPDATE_COMPLETED':
      return a.outcome?.failure ? 'failure' : 'success';
    case 'MARKER_RECORDED':
      return markerId(a);
    case 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES':
      return keys(a.searchAttributes?.indexedFields);
    case 'WORKFLOW_PROPERTIES_MODIFIED':
      return keys(a.upsertedMemo?.fields);
    case 'WORKFLOW_TASK_FAILED':
      return a.cause ?? '';
    case 'ACTIVITY_TASK_FAILED':
    case 'WORKFLOW_EXECUTION_FAILED':
      return a.failure?.applicationFailureInfo?.type ?? a.failure?.cause?.applicationFailureInfo?.type ?? '';
    default:
      return '';
  }
}

/** A history's shape: one line per event but the workflow task events, `TYPE detail`. */
export function historyShape(history: Json): string[] {
  const events: Json[] = Array.isArray(history.events) ? history.events : [];
  return events.flatMap((event) => {
    const type = String(event.eventType ?? '').replace(/^EVENT_TYPE_/, '');
    if (TIMING_ONLY.has(type)) return [];
    const detail = detailOf(type, event);
    return [detail ? `${type} ${detail}` : type];
  });
}

/**
 * The lines of two shapes that differ, as a unified-style list (`-` only in the first, `+` only in the second, with
 * the line number of each side), from a longest common subsequence; empty when the shapes are the same.
 */
export function shapeDiff(a: string[], b: string[]): string[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`-${i + 1} ${a[i++]}`);
    else out.push(`+${j + 1} ${b[j++]}`);
  }
  return out;
}

/** A history file; anything else (e.g. test/histories/workflow-ids.json) is refused, naming the file. */
function read(path: string): Json {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Json;
  if (!Array.isArray(json?.events)) throw new Error(`${path}: not a Temporal history (no "events" array)`);
  return json;
}

function main(): void {
  const [first, second] = process.argv.slice(2);
  if (!first) {
    console.error('usage: node dist/scripts/history-shape.js <history.json> [other.json]');
    process.exitCode = 2;
    return;
  }
  const shape = historyShape(read(first));
  if (!second) {
    console.log(shape.join('\n'));
    return;
  }
  const diff = shapeDiff(shape, historyShape(read(second)));
  if (diff.length === 0) {
    console.log(`same shape (${shape.length} events without the workflow tasks)`);
    return;
  }
  console.log(diff.join('\n'));
  process.exitCode = 1;
}

// Run as a script (not when a test imports it).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 2;
  }
}
