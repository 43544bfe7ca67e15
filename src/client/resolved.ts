/** The listing of resolved requests (the inbox's history), from visibility: each workflow's memo keeps its latest resolutions. */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { RESOLVED_AT_SEARCH_ATTRIBUTE, type Resolution } from '../workflows/visibility.js';
import { decodeCursor, DEFAULT_PAGE_LIMIT, encodeCursor, ListOptionError, MAX_PAGE_LIMIT } from './list-options.js';
import { memoOf, nextPageToken, queryLiteral, statusName } from './visibility.js';

/** One resolved request, listed from its workflow's memo, with the workflow's status (RUNNING, COMPLETED, …). */
export interface ResolvedRow extends Resolution {
  workflowId: string;
  runId: string;
  workflowType: string;
  status: string;
}

/**
 * The latest resolutions of the namespace's workflows resolved since `since` (DurableMcpResolvedAt), newest first within
 * the page: at most `limit` workflows read (default 50), each with the resolutions its memo keeps.
 */
export async function listResolvedPage(
  client: Client,
  options: { since: Date; limit?: number; cursor?: string },
): Promise<{ rows: ResolvedRow[]; nextCursor?: string }> {
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new ListOptionError(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got ${limit}`);
  const cursor = decodeCursor(options.cursor);
  const res = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: `${RESOLVED_AT_SEARCH_ATTRIBUTE} > ${queryLiteral(options.since.toISOString())}`,
    pageSize: limit,
    ...(cursor.t ? { nextPageToken: Buffer.from(cursor.t, 'base64') } : {}),
  });
  const rows: ResolvedRow[] = [];
  for (const wf of res.executions ?? []) {
    const memo = await memoOf(client, wf.memo?.fields as Record<string, Payload> | undefined).catch(() => undefined);
    const status = statusName(Number(wf.status ?? 0));
    for (const r of memo?.recent ?? [])
      rows.push({ ...r, workflowId: wf.execution?.workflowId ?? '', runId: wf.execution?.runId ?? '', workflowType: wf.type?.name ?? '', status });
  }
  rows.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  const next = nextPageToken(res.nextPageToken);
  return { rows, ...(next ? { nextCursor: encodeCursor({ t: next, s: 0 }) } : {}) };
}
