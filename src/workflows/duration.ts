/**
 * Temporal `Duration`s for every duration option (expiresIn, holdFor, toolTimeout, heartbeatTimeout):
 * a number is milliseconds, a string is Temporal's ms-format ("4s", "24h", "1 day"). One implementation,
 * used by workflow input checks, pipeline steps, the client and the CLI (deterministic: no Node).
 */
import { msToNumber, type Duration } from '@temporalio/common';

export type { Duration };

/** Upper bound of every duration option (one year). */
export const MAX_DURATION_MS = 365 * 24 * 60 * 60 * 1000;

/** What is wrong with a duration value, or its milliseconds. */
export function durationProblem(
  value: unknown,
  { allowZero = true, maxMs = MAX_DURATION_MS }: { allowZero?: boolean; maxMs?: number } = {},
): { ms: number } | { problem: string } {
  const range = `${allowZero ? 'from 0' : 'above 0'} up to ${maxMs} ms (one year)`;
  const expected = `a Temporal Duration: a number of milliseconds or a string like "4s", "24h", "1 day", ${range}`;
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string' && value.trim() !== '') {
    try {
      ms = msToNumber(value as Duration);
    } catch {
      return { problem: `must be ${expected}` };
    }
  } else return { problem: `must be ${expected}` };
  if (!Number.isFinite(ms) || ms < 0 || (!allowZero && ms === 0) || ms > maxMs) return { problem: `must be ${expected}` };
  return { ms };
}

export class InvalidDurationError extends Error {
  override name = 'InvalidDurationError';
  constructor(
    readonly field: string,
    readonly value: unknown,
    problem: string,
  ) {
    super(`field "${field}" ${problem}, got ${JSON.stringify(value) ?? String(value)}`);
  }
}

/** The milliseconds of a duration option; throws InvalidDurationError naming the field and the value. */
export function durationMs(field: string, value: Duration | unknown, options?: { allowZero?: boolean; maxMs?: number }): number {
  const r = durationProblem(value, options);
  if ('problem' in r) throw new InvalidDurationError(field, value, r.problem);
  return r.ms;
}

/** Like durationMs, but undefined stays undefined. */
export function optionalDurationMs(field: string, value: Duration | unknown, options?: { allowZero?: boolean; maxMs?: number }): number | undefined {
  return value === undefined ? undefined : durationMs(field, value, options);
}
