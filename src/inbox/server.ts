/**
 * The inbox web server (Hono on Node): the page (filters, pages by cursor, a history of resolved requests), plain form
 * posts that answer through `submitAnswer`, live updates pushed by server-sent events from one refresh loop per process
 * (src/inbox/live.ts), a fragment for browsers without them, and a small JSON API. Everything listed comes from
 * visibility (src/client/listing.ts); a worker is asked only when a request is answered. Loopback by default; any other
 * bind address needs a token (DURABLE_MCP_INBOX_TOKEN), and then every page and API call requires it.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Client } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import {
  DurableMcpClient,
  InvalidAnswerError,
  NoSuchPendingRequestError,
  NoWorkerError,
  UnknownWorkflowError,
  WorkflowClosedError,
  WorkflowTaskFailingError,
  type ListFilter,
} from '../client/index.js';
import { LIST_QUERY_TIMEOUT_MS, type ResolvedRow } from '../client/listing.js';
import type { Answer } from '../contract/index.js';
import { postedToContent, rejectionByField, schemaFields, type Posted } from './form.js';
import { listInbox, type InboxRow, type InboxView } from './list.js';
import { LiveHub, RecentlyAnswered } from './live.js';
import { accessGuard, isLoopback } from '../codec/access.js';
import { installOAuthCallback, type CodeSealer } from './oauth-callback.js';
import { inboxPublication, installClientMetadata } from './client-metadata.js';
import { INBOX_CSS, INBOX_JS } from './assets.js';
import { ACTION_FIELD, historyHtml, pageHtml, rowsHtml, viewQuery, type HistoryRow, type PageState } from './page.js';

export const DEFAULT_INBOX_HOST = '127.0.0.1';
export const DEFAULT_INBOX_PORT = 8787;
export const INBOX_TOKEN_ENV = 'DURABLE_MCP_INBOX_TOKEN';
/** Who answers through this inbox, when no trusted header says: the label of the token's holder (default "inbox"). */
export const INBOX_USER_ENV = 'DURABLE_MCP_INBOX_USER';
/** A request header set by a trusted reverse proxy with the signed-in person (e.g. X-Forwarded-User); unset: none is trusted. */
export const INBOX_USER_HEADER_ENV = 'DURABLE_MCP_INBOX_USER_HEADER';
const COOKIE = 'durable_mcp_inbox_token';

export class InboxTokenRequiredError extends Error {
  override name = 'InboxTokenRequiredError';
  constructor(readonly host: string) {
    super(`the inbox refuses to listen on ${host} without a token: set ${INBOX_TOKEN_ENV} (every page and API call then needs it), or bind to 127.0.0.1`);
  }
}
export class InboxOptionError extends Error {
  override name = 'InboxOptionError';
}

export interface InboxOptions {
  /** A Temporal client of the namespace to list. */
  client: Client;
  /** Bind address (default 127.0.0.1). Anything but loopback needs `token`. */
  host?: string;
  /** Port (default 8787; 0 picks a free one). */
  port?: number;
  /** Required on every page and API call when set (default: $DURABLE_MCP_INBOX_TOKEN). */
  token?: string;
  /** The Temporal UI's address, for links to workflows. */
  temporalUi?: string;
  /**
   * Deadline of the pendingDetails query of a workflow started before the listing memo (default 3 s). Answering a request
   * reads it and submits the answer with the client's own wait for a worker (15 s): a slow worker delays an answer, it
   * does not turn it away.
   */
  queryTimeoutMs?: number;
  taskQueue?: string;
  /** Seals the authorization code of a sign-in for its login workflow (servers behind OAuth; the worker's seal). */
  sealCode?: CodeSealer;
  /** Who answers, as recorded beside each answer, when `userHeader` does not say (default: $DURABLE_MCP_INBOX_USER, else "inbox"). */
  user?: string;
  /**
   * A request header a trusted reverse proxy sets to the signed-in person (default: $DURABLE_MCP_INBOX_USER_HEADER). Only
   * set it behind such a proxy: anyone who reaches the inbox directly could send the header.
   */
  userHeader?: string;
  /** How often the one refresh loop of this inbox reads visibility while a page is open (default 1,500 ms). */
  refreshMs?: number;
  /**
   * The inbox's public base URL, where browsers and authorization servers reach it (default: $DURABLE_MCP_INBOX_PUBLIC_URL).
   * An https one serves the Client ID Metadata Document of the logins (`oauth/client-metadata.json` under it).
   */
  publicUrl?: string;
}

export interface InboxHandle {
  /** The page's address, e.g. http://127.0.0.1:8787/ */
  url: string;
  /** The URL of the Client ID Metadata Document it serves (an https public URL only). */
  clientMetadataUrl?: string;
  /** What a person should know at start (a public URL that is not https serves no Client ID Metadata Document). */
  warnings: string[];
  close(): Promise<void>;
}

/** The inbox as a Hono app (for embedding, or serving with another adapter). */
export function createInboxApp(options: Omit<InboxOptions, 'host' | 'port'>): Hono {
  const { client } = options;
  const dmc = new DurableMcpClient(client, { taskQueue: options.taskQueue });
  const token = options.token;
  const queryTimeoutMs = options.queryTimeoutMs ?? LIST_QUERY_TIMEOUT_MS;
  const user = options.user ?? (process.env[INBOX_USER_ENV] || 'inbox');
  const userHeader = options.userHeader ?? (process.env[INBOX_USER_HEADER_ENV] || undefined);
  const whoAnswers = (c: Context): string => {
    const fromProxy = userHeader ? c.req.header(userHeader)?.trim() : undefined;
    return fromProxy ? fromProxy.slice(0, 200) : user;
  };
  const answered = new RecentlyAnswered();
  const app = new Hono();

  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
      crossOriginResourcePolicy: 'same-origin',
      // Served over plain http on loopback: HSTS there would pin localhost to https for every other app.
      strictTransportSecurity: false,
    }),
  );
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });
  // Before the access check: the browser comes back from the authorization server without the inbox's cookie; the
  // sign-in's state (random, single use, checked by its login workflow) is what authorizes it.
  installOAuthCallback(app, client, options.sealCode);
  installClientMetadata(app, inboxPublication(options.publicUrl));
  app.use(
    '*',
    accessGuard({
      token,
      cookie: COOKIE,
      realm: 'durable-mcp inbox',
      what: 'inbox',
      needsToken: `this inbox needs its token: open it once as /?token=… or send "Authorization: Bearer …" (${INBOX_TOKEN_ENV})`,
      refuse: (c, status, message) => c.text(message, status),
    }),
  );
  // Form posts must come from this page (Origin / Sec-Fetch-Site), not from another site.
  app.use('*', csrf());

  /** The view a request asks for: filters, a cursor and a page size from its query string (a bad one is a problem shown). */
  const viewOf = (c: Context): InboxView => {
    const q = (k: string) => {
      const v = c.req.query(k)?.trim();
      return v ? v : undefined;
    };
    const filter: ListFilter = {};
    for (const [param, key] of [
      ['server', 'server'],
      ['tool', 'tool'],
      ['kind', 'kind'],
      ['step', 'step'],
      ['type', 'workflowType'],
      ['text', 'text'],
    ] as const) {
      const v = q(param);
      if (v !== undefined) (filter as Record<string, string>)[key] = v;
    }
    const limit = q('limit');
    return { filter, ...(q('cursor') ? { cursor: q('cursor') } : {}), ...(limit !== undefined ? { limit: Number(limit) } : {}) };
  };
  const state = async (view: InboxView, extra: Partial<PageState> = {}): Promise<PageState> => {
    let rows: InboxRow[] = [];
    let problem: string | undefined;
    let nextCursor: string | undefined;
    let order: string | undefined;
    try {
      const listed = await listInbox(dmc, view, { queryTimeoutMs, hidden: (w, r) => answered.has(w, r) });
      rows = listed.rows;
      nextCursor = listed.page.nextCursor;
      order = listed.page.order;
    } catch (err) {
      problem = (err as Error).message;
    }
    return {
      rows,
      view,
      namespace: dmc.namespace,
      temporalUi: options.temporalUi,
      ...(nextCursor ? { nextCursor } : {}),
      ...(order ? { order } : {}),
      ...(problem ? { problem } : {}),
      ...extra,
    };
  };
  /** The one refresh loop of this inbox: it reads each open view's first page and pushes changes to every tab showing it. */
  const live = new LiveHub(async (view) => String(await rowsHtml(await state(view))), options.refreshMs ?? 1_500);

  app.get('/static/inbox.js', (c) => c.body(INBOX_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/static/inbox.css', (c) => c.body(INBOX_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));

  app.get('/', async (c) => {
    const done = c.req.query('answered');
    const action = c.req.query('action');
    const notice = done ? `Request ${done}: ${action ?? 'answered'}.` : undefined;
    return c.html(pageHtml(await state(viewOf(c), notice ? { notice } : {})));
  });
  app.get('/fragment', async (c) => c.html(rowsHtml(await state(viewOf(c)))));
  /** Live updates: the rows of this view whenever they change (and a `same` beat when they did not), from the one loop. */
  app.get('/events', (c) => {
    const { cursor: _cursor, ...view } = viewOf(c);
    return streamSSE(c, async (stream) => {
      await new Promise<void>((resolve) => {
        const leave = live.join(view, (event, data) => {
          stream.writeSSE({ event, data }).catch(() => undefined);
        });
        stream.onAbort(() => {
          leave();
          resolve();
        });
      });
    });
  });
  /** JSON API: one page of pending requests (`?server=&tool=&kind=&step=&type=&text=&limit=&cursor=`). */
  app.get('/api/requests', async (c) => {
    const view = viewOf(c);
    const s = await state(view);
    const status = s.problem && /cursor|limit|filter/.test(s.problem) ? 400 : 200;
    return c.json(
      {
        namespace: s.namespace,
        rows: s.rows,
        ...(s.nextCursor ? { nextCursor: s.nextCursor } : {}),
        order: s.order,
        ...(s.problem ? { problem: s.problem } : {}),
      },
      status,
    );
  });
  /** The requests resolved in the last 24 h (who, when, the outcome; the call's result once it finished). */
  const history = async (): Promise<{ rows: HistoryRow[]; problem?: string }> => {
    try {
      const { rows } = await dmc.listResolved({ limit: 50 });
      return { rows: await withResults(rows.slice(0, 100)) };
    } catch (err) {
      return { rows: [], problem: (err as Error).message };
    }
  };
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
            .then((v) => ({ text: typeof v === 'object' && v && 'output' in v ? String((v as { output: unknown }).output) : JSON.stringify(v) }))
            .catch((err: Error) => ({ text: `(result unavailable: ${err.message})` }));
          if (results.size >= 500) results.delete(results.keys().next().value!);
          results.set(key, value);
        }
        return { ...r, result: results.get(key) };
      }),
    );
  app.get('/history', async (c) => {
    const h = await history();
    return c.html(historyHtml({ namespace: dmc.namespace, temporalUi: options.temporalUi, rows: h.rows, ...(h.problem ? { problem: h.problem } : {}) }));
  });
  app.get('/api/history', async (c) => c.json(await history()));

  /** Submit an answer; the workflow's verdict as an HTTP status and message. */
  const submit = async (c: Context, workflowId: string, answer: Answer) => {
    try {
      const result = await dmc.submit(workflowId, answer, { by: whoAnswers(c) });
      // Visibility lags: the answered request leaves this inbox's pages now, and every open tab is told at once.
      answered.add(workflowId, answer.id);
      live.poke();
      return { ok: true as const, result };
    } catch (err) {
      if (err instanceof InvalidAnswerError) return { ok: false as const, status: 422 as const, reason: err.reason };
      if (err instanceof NoSuchPendingRequestError) return { ok: false as const, status: 409 as const, reason: err.detail };
      if (err instanceof UnknownWorkflowError) return { ok: false as const, status: 404 as const, reason: err.message };
      if (err instanceof WorkflowClosedError) return { ok: false as const, status: 409 as const, reason: err.message };
      // Not taken now (no worker answered in time, or its workflow task fails): nothing was decided; try again.
      if (err instanceof NoWorkerError || err instanceof WorkflowTaskFailingError) return { ok: false as const, status: 503 as const, reason: err.message };
      throw err;
    }
  };

  app.post('/answer', async (c) => {
    const workflowId = c.req.query('workflow');
    const requestId = c.req.query('request');
    if (!workflowId || !requestId) return c.text('the form must be posted to /answer?workflow=…&request=…', 400);
    const form = await c.req.formData();
    const posted: Posted = {};
    for (const [k, v] of form.entries()) if (typeof v === 'string') (posted[k] ??= []).push(v);
    const action = posted[ACTION_FIELD]?.[0];
    delete posted[ACTION_FIELD];
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
      return c.text(`field "${ACTION_FIELD}" must be accept, decline or cancel, got ${JSON.stringify(action ?? null)}`, 400);
    // The form again, with what was typed and why it was not taken.
    const formAgain = async (status: 422 | 503, fields: ReturnType<typeof rejectionByField>['fields'], general?: string) =>
      c.html(pageHtml(await state(viewOf(c), { rejected: { workflowId, requestId, posted, fields, ...(general ? { general } : {}) } })), status);
    let answer: Answer;
    let fieldKeys: string[] = [];
    if (action === 'decline') answer = { id: requestId, ok: false, reason: 'declined' };
    else if (action === 'cancel') answer = { id: requestId, ok: false, reason: 'cancelled' };
    else {
      let details;
      try {
        details = await dmc.pendingDetails(workflowId);
      } catch (err) {
        if (err instanceof UnknownWorkflowError) return rejectedPage(c, 404, `Request ${requestId}: ${err.message}`);
        // The request could not be read (no worker answered in time, ...): not "no longer pending"; what was typed stays.
        return formAgain(503, {}, `Your answer was not sent: ${(err as Error).message}`);
      }
      const request = details.find((d) => d.request.id === requestId)?.request;
      if (!request) return rejectedPage(c, 409, `Request ${requestId} is no longer pending (answered elsewhere, expired, or withdrawn).`);
      if (request.kind === 'input') {
        const fields = schemaFields((request.data as { schema?: unknown } | undefined)?.schema);
        fieldKeys = fields.map((f) => f.key);
        answer = { id: requestId, ok: true, data: postedToContent(fields, posted) };
      } else answer = { id: requestId, ok: true };
    }
    const verdict = await submit(c, workflowId, answer);
    if (verdict.ok) return c.redirect(`/?answered=${encodeURIComponent(requestId)}&action=${verdict.result.action}${viewQuery(viewOf(c), '&')}`, 303);
    if (verdict.status === 503) return formAgain(503, {}, verdict.reason);
    if (verdict.status !== 422) return rejectedPage(c, verdict.status, `Request ${requestId}: ${verdict.reason}`);
    const split = rejectionByField(verdict.reason, fieldKeys);
    return formAgain(422, split.fields, split.general);
  });
  const rejectedPage = async (c: Context, status: 404 | 409, notice: string) => c.html(pageHtml(await state(viewOf(c), { notice })), status);

  /** JSON API: `{ workflowId, answer }` → the `submitAnswer` result, or `{ error }` with 422 / 409 / 404. */
  app.post('/api/answer', async (c) => {
    // JSON only: a cross-site page cannot send that content type without a CORS preflight, which is never granted.
    if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) return c.json({ error: 'send the answer as Content-Type: application/json' }, 415);
    let body: { workflowId?: unknown; answer?: unknown };
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: 'body must be JSON: {"workflowId":"…","answer":{"id":"…","ok":true,"data":{…}}}' }, 400);
    }
    if (typeof body?.workflowId !== 'string' || !body.workflowId) return c.json({ error: 'field "workflowId" must be a non-empty string' }, 400);
    const verdict = await submit(c, body.workflowId, body.answer as Answer);
    return verdict.ok ? c.json(verdict.result) : c.json({ error: verdict.reason }, verdict.status);
  });
  return Object.assign(app, { closeLive: () => live.close() });
}

/** Serve the inbox. Refuses a non-loopback address without a token. */
export async function startInbox(options: InboxOptions): Promise<InboxHandle> {
  const host = options.host ?? DEFAULT_INBOX_HOST;
  const port = options.port ?? DEFAULT_INBOX_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InboxOptionError(`port must be a whole number from 0 to 65535, got ${JSON.stringify(port)}`);
  const token = options.token ?? (process.env[INBOX_TOKEN_ENV] || undefined);
  if (!isLoopback(host) && !token) throw new InboxTokenRequiredError(host);
  const published = inboxPublication(options.publicUrl);
  const app = createInboxApp({ ...options, token }) as ReturnType<typeof createInboxApp> & { closeLive(): void };
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s));
    s.once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}/`,
    ...(published?.clientMetadataUrl ? { clientMetadataUrl: published.clientMetadataUrl } : {}),
    warnings: published?.noDocument ? [published.noDocument] : [],
    close: () =>
      new Promise<void>((resolve) => {
        app.closeLive();
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
