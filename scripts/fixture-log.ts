/**
 * Reading what a fixture MCP server (test/fixtures) wrote to its FIXTURE_LOG, for the tests and the benchmarks alike
 * (bench/ imports nothing from test/, so the one copy lives here).
 */
import { existsSync, readFileSync } from 'node:fs';

/** The events a fixture server wrote to its FIXTURE_LOG (one JSON object a line; a torn last line is skipped). Missing file: []. */
export function readFixtureLog(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return []; // a torn last line (process killed mid-write)
      }
    });
}
