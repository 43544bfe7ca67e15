/** `replayHistories(workflowsPath, histories)`: replay your committed workflow histories against your current workflow code. */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { type EncryptionCodec, resolveEncryption } from '../codec/index.js';
import { durableMcpSinks } from '../telemetry/metrics.js';

/** A history to replay: a path to a JSON file (`temporal workflow show --output json`), that JSON parsed, or `handle.fetchHistory()`'s history object. */
export type HistorySource = string | { workflowId?: string; history: unknown };

export interface ReplayOutcome {
  workflowId: string;
  /** Set when the replay failed (nondeterminism, or an error of the workflow code). */
  error?: Error;
}

/**
 * The Temporal SDK's JSON history helpers fail with "type must be a Type" when npm installed two copies of
 * protobufjs (its @temporalio/common and @temporalio/proto each nest one when @grpc/proto-loader's protobufjs 7
 * takes the top level). One direct `protobufjs@^8` dependency of the project dedupes them.
 */
function protobufAdvice<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (/type must be a Type/.test((err as Error)?.message ?? '')) {
      throw new Error(
        `${what}: two copies of protobufjs are installed, and the Temporal SDK's history JSON needs one.` +
          ` Add "protobufjs": "^8.8.1" to your project's devDependencies and reinstall.`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** A recorded history no longer replays against the current workflow code: the change needs a version in the registry (src/workflows/versions.ts). */
export class ReplayFailedError extends Error {
  override name = 'ReplayFailedError';
  constructor(readonly failures: ReplayOutcome[]) {
    super(
      `${failures.length} histor${failures.length === 1 ? 'y' : 'ies'}` +
        ` did not replay: ${failures.map((f) => `${f.workflowId}: ${f.error?.message}`).join('; ')}`,
    );
  }
}

function load(source: HistorySource, i: number): { workflowId: string; history: ReturnType<typeof historyFromJSON> } {
  if (typeof source === 'string') {
    const json = JSON.parse(readFileSync(source, 'utf8'));
    return { workflowId: basename(source).replace(/\.json$/, ''), history: protobufAdvice('replayHistories', () => historyFromJSON(json)) };
  }
  const h = source.history as { events?: unknown[] };
  if (!h || typeof h !== 'object' || !Array.isArray(h.events)) throw new TypeError(`replayHistories: history ${i} has no "events" array`);
  const workflowId = source.workflowId ?? `history-${i + 1}`;
  // A history object from the SDK (`handle.fetchHistory()`) replays as it is; plain JSON is parsed as Temporal's JSON format.
  if (Object.getPrototypeOf(h) !== Object.prototype) return { workflowId, history: h as ReturnType<typeof historyFromJSON> };
  return { workflowId, history: protobufAdvice('replayHistories', () => historyFromJSON(h)) };
}

/**
 * Replay each history with the workflows of `workflowsPath`. Resolves with one outcome per history;
 * rejects with ReplayFailedError naming every history that did not replay (unless `throwOnFailure: false`).
 * Encrypted histories replay with the keys of DURABLE_MCP_ENCRYPTION_KEYS (or `encryption`); plaintext ones with or without.
 */
export async function replayHistories(
  workflowsPath: string,
  histories: HistorySource[],
  options: { throwOnFailure?: boolean; encryption?: EncryptionCodec | false } = {},
): Promise<ReplayOutcome[]> {
  // The codec alone, not dataConverterOf's encoding failure converter: a replay writes no history, and the failure that
  // says why a history did not replay must be readable (not "Encoded failure").
  const codec = resolveEncryption(options.encryption);
  const dataConverter = codec ? { payloadCodecs: [codec] } : undefined;
  const loaded = histories.map(load);
  // durable-mcp's workflows call the metrics sink (never while replaying): registered, so no error is logged.
  const outcomes: ReplayOutcome[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath, sinks: durableMcpSinks(), ...(dataConverter ? { dataConverter } : {}) }, loaded)) {
    outcomes.push({ workflowId: result.workflowId, ...(result.error ? { error: result.error as Error } : {}) });
  }
  const failures = outcomes.filter((o) => o.error);
  if (failures.length && options.throwOnFailure !== false) throw new ReplayFailedError(failures);
  return outcomes;
}

/** Write a workflow's history to `path` in Temporal's JSON history format (what `temporal workflow show --output json` writes), for `replayHistories`. */
export async function saveHistory(handle: { fetchHistory(): Promise<unknown> }, path: string): Promise<void> {
  const history = await handle.fetchHistory();
  writeFileSync(
    path,
    protobufAdvice('saveHistory', () => historyToJSON(history as Parameters<typeof historyToJSON>[0])),
  );
}
