/** `pending`: the pending requests of one workflow, or of every workflow awaiting input (visibility only, grouped by workflow). */
import type { Command } from 'commander';
import { ListOptionError, MAX_PAGE_LIMIT, type DurableMcpClient, type ListFilter, type PendingRequest } from '../../client/index.js';
import { pendingEntryLines, terminalSafe } from '../terminal.js';
import { client, EXIT, positiveInt, positiveSeconds, print, UsageError } from './common.js';

interface PendingOptions {
  json?: boolean;
  wait?: number | true;
  server?: string;
  tool?: string;
  kind?: string;
  step?: string;
  type?: string;
  text?: string;
  limit?: number;
  cursor?: string;
}
/** One workflow of the text or JSON listing: its pending requests, or why they are not listed. */
type WorkflowRow = {
  workflowId: string;
  pending: PendingRequest[];
  unreachable?: string;
  note?: string;
};

/** The filter of the listing from the command's options. */
function filterOf(opts: PendingOptions): ListFilter {
  return {
    ...(opts.server !== undefined ? { server: opts.server } : {}),
    ...(opts.tool !== undefined ? { tool: opts.tool } : {}),
    ...(opts.kind !== undefined ? { kind: opts.kind as ListFilter['kind'] } : {}),
    ...(opts.step !== undefined ? { step: opts.step } : {}),
    ...(opts.type !== undefined ? { workflowType: opts.type } : {}),
    ...(opts.text !== undefined ? { text: opts.text } : {}),
  };
}

/** One page (--limit / --cursor, `paged`), or every page; visibility only, grouped by workflow. */
async function listedRows(
  c: DurableMcpClient,
  filter: ListFilter,
  opts: PendingOptions,
  paged: boolean,
): Promise<{ rows: WorkflowRow[]; nextCursor?: string }> {
  const rows: WorkflowRow[] = [];
  const byId = new Map<string, WorkflowRow>();
  const rowOf = (id: string) => {
    let row = byId.get(id);
    if (!row) {
      row = { workflowId: id, pending: [] };
      rows.push(row);
      byId.set(id, row);
    }
    return row;
  };
  let cursor = opts.cursor;
  do {
    let page;
    try {
      page = await c.listPending({
        filter,
        limit: opts.limit ?? MAX_PAGE_LIMIT,
        order: 'expiry',
        queriesWithoutMemo: paged ? undefined : Number.MAX_SAFE_INTEGER,
        ...(cursor ? { cursor } : {}),
      });
    } catch (err) {
      if (err instanceof ListOptionError) throw new UsageError(err.message);
      throw err;
    }
    for (const r of page.rows) {
      const row = rowOf(r.workflowId);
      row.pending.push({ request: r.request, context: r.context, ...(r.tooLarge ? { tooLarge: true } : {}) });
      if (r.noWorker) row.unreachable = r.noWorker;
    }
    for (const o of page.others) {
      const row = rowOf(o.workflowId);
      if (o.kind === 'unreachable') row.unreachable = o.reason;
      else row.note = o.reason;
    }
    cursor = page.nextCursor;
  } while (cursor && !paged);
  return { rows, ...(cursor ? { nextCursor: cursor } : {}) };
}

export function pendingCommand(program: Command): void {
  program
    .command('pending [workflowId]')
    .description(
      "List pending requests: of one workflow, or of every workflow awaiting input, from visibility (each workflow's memo; " +
        'no worker is asked, except for workflows started before the listing memo)',
    )
    .option('--json', 'machine-readable output')
    .option('--wait [seconds]', 'with a workflow id: wait until a request is pending (default 60 s, at most 600)', positiveSeconds('--wait'))
    .option('--server <name>', 'only requests of this MCP server')
    .option('--tool <name>', 'only requests of this tool')
    .option('--kind <kind>', 'only requests of this kind: input (a form) or authorization (a link)')
    .option('--step <name>', 'only requests of this pipeline step')
    .option('--type <workflowType>', 'only workflows of this type (e.g. mcpToolCall, mcpPipeline)')
    .option('--text <text>', 'only requests whose prompt contains this text (case-insensitive)')
    .option('--limit <n>', `one page of at most n requests (1 to ${MAX_PAGE_LIMIT}); --json then prints { workflows, nextCursor }`, positiveInt('--limit'))
    .option('--cursor <cursor>', 'the page after the one whose nextCursor this is')
    .action(async (workflowId: string | undefined, opts: PendingOptions) => {
      if (opts.wait !== undefined && !workflowId) throw new UsageError('pending --wait needs a workflow id');
      const filter = filterOf(opts);
      const paged = opts.limit !== undefined || opts.cursor !== undefined;
      if (workflowId && (paged || Object.keys(filter).length > 0))
        throw new UsageError(
          'pending <workflowId> lists that workflow only: --server, --tool, --kind, --step, --type, --text, --limit and --cursor list all workflows',
        );
      if (opts.kind !== undefined && opts.kind !== 'input' && opts.kind !== 'authorization')
        throw new UsageError(`--kind must be input or authorization, got "${opts.kind}"`);
      if (opts.limit !== undefined && opts.limit > MAX_PAGE_LIMIT) throw new UsageError(`--limit must be at most ${MAX_PAGE_LIMIT}, got ${opts.limit}`);
      const c = await client();
      if (opts.wait !== undefined && workflowId) {
        await c.waitForPending(workflowId, { timeoutMs: (opts.wait === true ? 60 : opts.wait) * 1000 });
      }
      let rows: WorkflowRow[];
      let nextCursor: string | undefined;
      if (workflowId) rows = [{ workflowId, pending: await c.pendingDetails(workflowId) }];
      else ({ rows, nextCursor } = await listedRows(c, filter, opts, paged));
      print(!!opts.json, paged ? { workflows: rows, ...(nextCursor ? { nextCursor } : {}) } : rows, () => {
        const lines: string[] = [];
        for (const row of rows) {
          if (row.unreachable) lines.push(`${terminalSafe(row.workflowId)}  (unreachable: ${terminalSafe(row.unreachable)})`);
          if (row.note) lines.push(`${terminalSafe(row.workflowId)}  (${terminalSafe(row.note)})`);
          // Server text is untrusted: escaped and indented for the terminal (src/cli/terminal.ts).
          for (const { request, context } of row.pending) lines.push(...pendingEntryLines(row.workflowId, request, context));
        }
        if (nextCursor) lines.push(`more: npx durable-mcp pending --limit ${opts.limit ?? MAX_PAGE_LIMIT} --cursor ${terminalSafe(nextCursor)}`);
        return lines.length ? lines.join('\n') : 'no pending requests';
      });
      // Nothing could be reached (every workflow awaiting input is unreachable): exit 4, as when no worker answers.
      const unreachable = rows.filter((r) => r.unreachable);
      if (rows.length > 0 && unreachable.length === rows.length) {
        process.exitCode = EXIT.NO_WORKER;
        const why = terminalSafe(unreachable[0].unreachable ?? '');
        console.error(
          `durable-mcp: no workflow awaiting input could be reached (${why}); start a worker: \`npm start\` in a clone, or \`npx durable-mcp worker\``,
        );
      }
    });
}
