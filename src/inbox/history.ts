/** The inbox's history: the requests resolved in the last 24 h (who, when, the outcome; the call's result once it finished). */
import type { Client } from '@temporalio/client';
import type { Hono } from 'hono';
import type { DurableMcpClient } from '../client/index.js';
import type { ResolvedRow } from '../client/resolved.js';
import { isAssignee, type Person } from '../contract/assignees.js';
import { APPROVAL_ARGUMENTS_MAX } from '../contract/tool-arguments.js';
import { historyHtml, type HistoryRow } from './history-view.js';
import { signedInPerson } from './view.js';

/**
 * The resolved requests a person may see: those addressed to them (or their roles) and unaddressed ones, as the listing's
 * "all I may answer" (a token's holder, no person: all of them).
 */
export function historyFor(rows: ResolvedRow[], person: Person | undefined): ResolvedRow[] {
  return person ? rows.filter((r) => isAssignee(r.assignees, person)) : rows;
}

/** The history page (`/history`) and its JSON (`/api/history`). */
export function installHistory(app: Hono, client: Client, dmc: DurableMcpClient, temporalUi: string | undefined): void {
  const results = new Map<string, HistoryRow['result']>();
  /** The result of each finished call (read once from its history's close event, then kept; at most 500 kept). */
  const withResults = (rows: ResolvedRow[]): Promise<HistoryRow[]> =>
    Promise.all(
      rows.map(async (r) => {
        if (r.status !== 'COMPLETED') return r;
        const key = `${r.workflowId}\n${r.runId}`;
        if (!results.has(key)) {
          const value = await client.workflow
            .getHandle(r.workflowId, r.runId)
            .result()
            .then((v) => resultShown(v))
            .catch((err: Error) => ({ text: `(result unavailable: ${err.message})` }));
          if (results.size >= 500) results.delete(results.keys().next().value!);
          results.set(key, value);
        }
        return { ...r, result: results.get(key) };
      }),
    );
  /** The requests resolved in the last 24 h (who, when, the outcome; the call's result once it finished). */
  const history = async (person: Person | undefined): Promise<{ rows: HistoryRow[]; problem?: string }> => {
    try {
      const { rows } = await dmc.listResolved({ limit: 50 });
      return { rows: await withResults(historyFor(rows, person).slice(0, 100)) };
    } catch (err) {
      return { rows: [], problem: (err as Error).message };
    }
  };
  app.get('/history', async (c) => {
    const h = await history(signedInPerson(c));
    return c.html(historyHtml({ namespace: dmc.namespace, temporalUi, rows: h.rows, ...(h.problem ? { problem: h.problem } : {}) }));
  });
  app.get('/api/history', async (c) => c.json(await history(signedInPerson(c))));
}

/** A call's result as the history shows it: its output, and for an approved call the arguments a person approved. */
function resultShown(v: unknown): NonNullable<HistoryRow['result']> {
  if (typeof v !== 'object' || !v || !('output' in v)) return { text: JSON.stringify(v) };
  const r = v as { output: unknown; metadata?: { approvedArguments?: unknown } };
  const approved = r.metadata?.approvedArguments;
  return { text: String(r.output), ...(approved !== undefined ? { approvedArguments: approvedShown(approved) } : {}) };
}

/**
 * The approved arguments as JSON, whole as they were shown and approved (docs/approvals.md); a person's edits can make
 * them longer than an approval shows, so past twice that limit the page says how much more there is, never cutting
 * silently.
 */
function approvedShown(approved: unknown): string {
  const json = JSON.stringify(approved) ?? '';
  const max = 2 * APPROVAL_ARGUMENTS_MAX;
  return json.length <= max ? json : `${json.slice(0, max)}… (${json.length - max} more characters: the call's result has them whole)`;
}
