/** The listing of resolved requests (the inbox's history), from visibility: each workflow's memo keeps its latest resolutions. */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { RESOLVED_AT_SEARCH_ATTRIBUTE, SEARCH_ATTRIBUTES, type Resolution } from '../workflows/visibility.js';
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
 * the page: at most `limit` workflows read (default 50), each with the resolutions its memo keeps; with `workflowId`,
 * that workflow's runs only (asked of visibility, not filtered here).
 */
export async function listResolvedPage(
  client: Client,
  options: { since: Date; limit?: number; cursor?: string; workflowId?: string },
): Promise<{ rows: ResolvedRow[]; nextCursor?: string }> {
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new ListOptionError(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got ${limit}`);
  const cursor = decodeCursor(options.cursor);
  const res = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query:
      `${RESOLVED_AT_SEARCH_ATTRIBUTE} > ${queryLiteral(options.since.toISOString())}` +
      (options.workflowId !== undefined ? ` AND WorkflowId = ${queryLiteral(options.workflowId)}` : ''),
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

/** Why nothing resolved can be listed in `namespace`: the listing's search attributes are not all registered, and how to register them. */
export function listingAttributesMissing(namespace: string): string {
  return (
    `the listing's search attributes (${SEARCH_ATTRIBUTES.map((a) => a.name).join(', ')}) are not all registered in namespace "${namespace}", ` +
    `so answered requests cannot be listed. Register each with: temporal operator search-attribute create --namespace ${namespace} ` +
    `--name <name> --type <type> (${SEARCH_ATTRIBUTES.map((a) => `${a.name} ${a.type}`).join(', ')}); durable-mcp dev and the docker-compose setup do this`
  );
}
