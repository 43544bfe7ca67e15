/**
 * `durable-mcp history`: who answered what, when, and by which channel (docs/people.md), from visibility: each
 * workflow's memo keeps its latest resolutions (the inbox's history reads the same rows). Filtered by workflow and by
 * person; `--json` prints the rows as they are.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ResolvedRow } from '../../client/resolved.js';
import { durationMs } from '../../workflows/duration.js';
import { terminalSafe } from '../terminal.js';
import { client, positiveInt, print } from './common.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** At most this many pages of 100 workflows are read (the newest first within each page). */
const MAX_PAGES = 20;

/** The `--since` flag: a Duration back from now ("24h", "7d", "90m"). */
function since(value: string): number {
  try {
    return durationMs('--since', value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Whether `row` was answered by `person` (a case-insensitive part of `by`, e.g. an email or a subject). */
function answeredBy(row: ResolvedRow, person: string): boolean {
  return row.by.toLowerCase().includes(person.toLowerCase());
}

/** The lines of one resolution: when, workflow, request, outcome, who and through which channel; then its prompt. */
export function historyLines(r: ResolvedRow): string[] {
  const via = r.source ?? 'signal or update (unverified)';
  const step = r.step !== undefined ? ` (step ${terminalSafe(r.step)})` : '';
  return [
    `${terminalSafe(r.at)}  ${terminalSafe(r.workflowId)}  ${terminalSafe(r.id)}  ${terminalSafe(r.outcome)}`,
    `    ${terminalSafe(r.server)}/${terminalSafe(r.tool)}${step}: ${terminalSafe(r.prompt)}`,
    `    by ${terminalSafe(r.by)}, via ${terminalSafe(via)}`,
  ];
}

export function historyCommand(program: Command): void {
  program
    .command('history [workflowId]')
    .description('Who answered what, when, and by which channel: the requests resolved recently (of one workflow, or of all), newest first')
    .option('--by <person>', 'only answers by this person (a part of who answered: an email, a subject, a name)')
    .option('--since <duration>', 'how far back (a Duration: "24h", "7d"; default 24h)', since)
    .option('--limit <n>', 'at most n rows (default 50)', positiveInt('--limit'))
    .option('--json', 'machine-readable output: the rows as they are')
    .action(async (workflowId: string | undefined, opts: { by?: string; since?: number; limit?: number; json?: boolean }) => {
      const c = await client();
      const limit = opts.limit ?? 50;
      const from = new Date(Date.now() - (opts.since ?? DAY_MS));
      const rows: ResolvedRow[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && rows.length < limit; page++) {
        const listed = await c.listResolved({ since: from, limit: 100, ...(cursor ? { cursor } : {}) });
        rows.push(...listed.rows.filter((r) => (!workflowId || r.workflowId === workflowId) && (!opts.by || answeredBy(r, opts.by))));
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      rows.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
      const shown = rows.slice(0, limit);
      print(!!opts.json, shown, () => (shown.length ? shown.flatMap(historyLines).join('\n') : 'no answers in that time'));
    });
}
