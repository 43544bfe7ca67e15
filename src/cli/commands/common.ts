/**
 * What every command of the command line uses: the exit codes, the flag parsers, the output (text, or JSON with
 * `--json`) and the Temporal client.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { connectClient, DurableMcpClient, type ClientErrorCode } from '../../client/index.js';
import { resolveEncryption } from '../../codec/index.js';
import { tracesRequested } from '../../telemetry/metrics.js';
import { FIELD_CHECKS, type DurationField } from '../../workflows/input.js';

/** Exit codes (docs/cli.md lists them). */
export const EXIT = {
  OK: 0,
  /** The tool call failed (the workflow failed, was cancelled or terminated), or the tool returned isError. */
  CALL_FAILED: 1,
  /** Bad usage: an unknown flag, a bad flag value, --data for a URL-mode request. */
  USAGE: 2,
  /**
   * Temporal cannot be reached, does not answer in time, cancelled the request, refuses this client (namespace, permission,
   * credentials), or rate-limits it.
   */
  TEMPORAL_UNREACHABLE: 3,
  /** No worker answered: nothing polls the workflow's task queue (or it did not reply within seconds), or its workflow task fails. */
  NO_WORKER: 4,
  /**
   * Refused: no such workflow, no such pending request, an answer the workflow rejected, a closed workflow, a workflow id
   * already running, a workflow that is not durable-mcp's, an unregistered search attribute, an update limit, a request
   * Temporal finds invalid (a payload over its size limit).
   */
  REFUSED: 5,
  /** Anything else (a bug, or an error this table does not know). */
  OTHER: 6,
} as const;

/** The exit code of each of the client's own errors (a Record: a new code cannot be left without one). */
export const EXIT_OF: Record<ClientErrorCode, number> = {
  TemporalUnreachable: EXIT.TEMPORAL_UNREACHABLE,
  TemporalRefused: EXIT.TEMPORAL_UNREACHABLE,
  NoWorker: EXIT.NO_WORKER,
  WorkflowTaskFailing: EXIT.NO_WORKER,
  UnknownWorkflow: EXIT.REFUSED,
  WorkflowClosed: EXIT.REFUSED,
  WorkflowAlreadyStarted: EXIT.REFUSED,
  NotDurableMcp: EXIT.REFUSED,
  SearchAttributeNotRegistered: EXIT.REFUSED,
  UpdateLimit: EXIT.REFUSED,
  TemporalBusy: EXIT.TEMPORAL_UNREACHABLE,
  TemporalRejected: EXIT.REFUSED,
};

/** A usage error found after parsing (exit code 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--x <json>`, `--x @file` or (when `stdin`) `--x -`: a JSON object. */
export function jsonObject(what: string, { stdin = false }: { stdin?: boolean } = {}) {
  return (value: string): Record<string, unknown> => {
    let text = value;
    let from = '';
    if (value === '-' && stdin) {
      text = readFileSync(0, 'utf8');
      from = ' (from stdin)';
    } else if (value.startsWith('@')) {
      const path = value.slice(1);
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        throw new InvalidArgumentError(`${what} ${value}: cannot read "${path}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      from = ` (from ${path})`;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new InvalidArgumentError(`${what}${from} must be JSON: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError(`${what}${from} must be a JSON object`);
    return parsed as Record<string, unknown>;
  };
}
export function positiveInt(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive integer, got "${value}"`);
    return n;
  };
}

export function positiveSeconds(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0 || n > 600) throw new InvalidArgumentError(`${what} must be a whole number of seconds from 1 to 600, got "${value}"`);
    return n;
  };
}

/**
 * A Temporal Duration flag for a field of the tool call's input, checked by the workflow's own check of that field
 * (src/workflows/input.ts): digits are milliseconds, anything else ms-format ("4s", "24h", "1 day").
 */
export function duration(what: string, field: DurationField) {
  return (value: string): number | string => {
    const v = /^\d+$/.test(value.trim()) ? Number(value) : value;
    const problem = FIELD_CHECKS[field](v);
    if (problem !== undefined) throw new InvalidArgumentError(`${what} ${problem}, got "${value}"`);
    return v;
  };
}

export async function client(): Promise<DurableMcpClient> {
  // With an OTLP variable set, the CLI's calls start the trace (client → workflow → activity → MCP).
  const interceptors = tracesRequested() ? (await import('../../telemetry/tracing.js')).tracingClientInterceptors() : [];
  // No key where encryption is required (DURABLE_MCP_REQUIRE_ENCRYPTION): refused here, before anything is sent.
  const encryption = resolveEncryption(undefined, process.env, { who: 'the CLI' });
  const { client } = await connectClient({ interceptors: { workflow: interceptors }, encryption: encryption ?? false });
  return new DurableMcpClient(client, { taskQueue: process.env.DURABLE_MCP_TASK_QUEUE });
}

export function print(json: boolean, value: unknown, text: () => string): void {
  console.log(json ? JSON.stringify(value, null, 2) : text());
}

/** One line of a long-running command's `--json` output (dev, worker, inbox): one JSON object a line. */
export function jsonLine(value: Record<string, unknown>): void {
  console.log(JSON.stringify(value));
}
