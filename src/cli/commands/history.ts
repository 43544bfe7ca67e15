/**
 * `durable-mcp history`: who answered what, when, and by which channel (docs/people.md), from visibility: each
 * workflow's memo keeps its latest resolutions (the inbox's history reads the same rows, through `listResolved`).
 * Filtered by workflow (asked of visibility) and by person; `--json` prints the rows as they are. How a record is
 * read and printed is `historyLines` alone: a field it does not lay out (a newer record's) is printed by its name.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { ClientError, ClientErrorCodes } from '../../client/index.js';
import type { ResolvedRow } from '../../client/resolved.js';
import { assigneesLine } from '../../contract/assignees.js';
import { durationMs } from '../../workflows/duration.js';
import { terminalSafe } from '../terminal.js';
import { client, positiveInt, print } from './common.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** At most this many pages of PAGE workflows are read; past them the command says it stopped. */
const MAX_PAGES = 20;
const PAGE = 100;

/** The `--since` flag: a Duration back from now ("24h", "7d", "90m"). */
function since(value: string): number {
  try {
    return durationMs('--since', value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** The `--by` flag: a person, not blank. */
function person(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('--by must name a person (an email, a name, a subject, role:<name>), got a blank');
  return value.trim();
}

/** What may stand right before and right after a person's name in `by` ("ana@x, bob@x", "ana@x (oidc https://… sub=42)"). */
const BEFORE = ' ,(=';
const AFTER = ' ,)';

/**
 * Whether `by` names `who` whole, case-insensitive: an email, a name, a subject after `sub=`, `role:finance`, or more of
 * it ("ana@example.com (link)"); never a part of a longer name (`ana@example.com` is not `banana@example.com`).
 */
export function answeredBy(by: string, who: string): boolean {
  const text = by.toLowerCase();
  const name = who.trim().toLowerCase();
  if (name === '') return false;
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
    if (BEFORE.includes(text[i - 1] ?? ' ') && AFTER.includes(text[i + name.length] ?? ' ')) return true;
  }
  return false;
}

/** The fields of a row `historyLines` lays out itself (or leaves to --json); any other is printed as `name: value`. */
const LAID_OUT = new Set([
  'at',
  'workflowId',
  'id',
  'outcome',
  'server',
  'tool',
  'step',
  'prompt',
  'by',
  'source',
  'claimed',
  'assurance',
  'assignees',
  'kind',
  'runId',
  'workflowType',
  'status',
]);

/**
 * The lines of one resolution: when, workflow, request, outcome; the server and tool with the prompt; whom it was for;
 * who answered, through which channel, and every further field the record has (escaped: all of it comes from outside).
 */
export function historyLines(r: ResolvedRow): string[] {
  const via = channelOf(r);
  const step = r.step !== undefined ? ` (step ${terminalSafe(r.step)})` : '';
  const more = Object.entries(r)
    .filter(([k, v]) => !LAID_OUT.has(k) && v !== undefined)
    .map(([k, v]) => `; ${terminalSafe(k)}: ${terminalSafe(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)))}`)
    .join('');
  return [
    `${terminalSafe(r.at)}  ${terminalSafe(r.workflowId)}  ${terminalSafe(r.id)}  ${terminalSafe(r.outcome)}`,
    `    ${terminalSafe(r.server)}/${terminalSafe(r.tool)}${step}: ${terminalSafe(r.prompt)}`,
    ...(r.assignees ? [`    for: ${terminalSafe(assigneesLine(r.assignees))}`] : []),
    `    by ${terminalSafe(r.by)}, via ${terminalSafe(via)}${more}`,
  ];
}

/**
 * Through which channel, and how strongly the worker knows who answered (docs/security.md "Who answered"): `oidc
 * (issuer-verified)`, `cli (claimed)`, `claimed (named oidc, not proved)`; a record older than the assurance, as it was.
 */
function channelOf(r: ResolvedRow): string {
  if (r.source === 'claimed') return `claimed (named ${r.claimed ?? 'a source'}, not proved)`;
  if (r.assurance !== undefined) return `${r.source ?? 'signal or update'} (${r.assurance})`;
  return r.source ?? 'signal or update (unverified)';
}

export function historyCommand(program: Command): void {
  program
    .command('history [workflowId]')
    .description('Who answered what, when, and by which channel: the requests resolved recently (of one workflow, or of all), newest first')
    .option('--by <person>', 'only answers by this person, named whole (an email, a name, a subject, role:<name>; case-insensitive)', person)
    .option('--since <duration>', 'how far back (a Duration: "24h", "7d"; default 24h, or with a workflow id all its memo keeps)', since)
    .option('--limit <n>', 'at most n rows (default 50)', positiveInt('--limit'))
    .option('--json', 'machine-readable output: the rows as they are')
    .action(async (workflowId: string | undefined, opts: { by?: string; since?: number; limit?: number; json?: boolean }) => {
      const c = await client();
      const limit = opts.limit ?? 50;
      // One workflow keeps its latest resolutions in its memo however old: all of them unless --since says otherwise.
      const from = new Date(opts.since !== undefined ? Date.now() - opts.since : workflowId !== undefined ? 0 : Date.now() - DAY_MS);
      const rows: ResolvedRow[] = [];
      let cursor: string | undefined;
      let page = 0;
      do {
        const listed = await c.listResolved({ since: from, limit: PAGE, ...(workflowId !== undefined ? { workflowId } : {}), ...(cursor ? { cursor } : {}) });
        if (listed.unlisted) throw new ClientError(ClientErrorCodes.SearchAttributeNotRegistered, listed.unlisted, { namespace: c.namespace });
        rows.push(...listed.rows.filter((r) => opts.by === undefined || answeredBy(r.by, opts.by)));
        cursor = listed.nextCursor;
      } while (cursor && ++page < MAX_PAGES);
      // Every page read, then the newest: visibility lists workflows by start, not by when they were answered.
      rows.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
      const shown = rows.slice(0, limit);
      print(!!opts.json, shown, () => (shown.length ? shown.flatMap(historyLines).join('\n') : 'no answers in that time'));
      if (cursor)
        console.error(
          `durable-mcp: stopped after the ${MAX_PAGES * PAGE} workflows visibility listed first; ` +
            'older answers may be missing: narrow it with a workflow id or --since',
        );
    });
}
