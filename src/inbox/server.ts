/**
 * The inbox web server (Hono on Node): the page, plain form posts that answer through `submitAnswer`, a
 * fragment for live updates and a small JSON API. Loopback by default; any other bind address needs a
 * token (DURABLE_MCP_INBOX_TOKEN), and then every page and API call requires it.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Client } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import { DurableMcpClient, InvalidAnswerError, NoSuchPendingRequestError, UnknownWorkflowError } from '../client/index.js';
import { LIST_QUERY_TIMEOUT_MS } from '../client/listing.js';
import type { Answer } from '../contract/index.js';
import { postedToContent, rejectionByField, schemaFields, type Posted } from './form.js';
import { listInbox, type InboxRow } from './list.js';
import { accessGuard, isLoopback } from './access.js';
import { installOAuthCallback, type CodeSealer } from './oauth-callback.js';
import { ACTION_FIELD, INBOX_CSS, INBOX_JS, pageHtml, rowsHtml, type PageState } from './page.js';

export const DEFAULT_INBOX_HOST = '127.0.0.1';
export const DEFAULT_INBOX_PORT = 8787;
export const INBOX_TOKEN_ENV = 'DURABLE_MCP_INBOX_TOKEN';
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
  /** Deadline of each workflow's pendingDetails query (default 3 s). */
  queryTimeoutMs?: number;
  taskQueue?: string;
  /** Seals the authorization code of a sign-in for its login workflow (servers behind OAuth; the worker's seal). */
  sealCode?: CodeSealer;
}

export interface InboxHandle {
  /** The page's address, e.g. http://127.0.0.1:8787/ */
  url: string;
  close(): Promise<void>;
}

/** The inbox as a Hono app (for embedding, or serving with another adapter). */
export function createInboxApp(options: Omit<InboxOptions, 'host' | 'port'>): Hono {
  const { client } = options;
  const dmc = new DurableMcpClient(client, { taskQueue: options.taskQueue });
  const token = options.token;
  const queryTimeoutMs = options.queryTimeoutMs ?? LIST_QUERY_TIMEOUT_MS;
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

  const state = async (extra: Partial<PageState> = {}): Promise<PageState> => {
    let rows: InboxRow[] = [];
    let problem: string | undefined;
    try {
      rows = await listInbox(dmc, { queryTimeoutMs });
    } catch (err) {
      problem = (err as Error).message;
    }
    return { rows, namespace: dmc.namespace, temporalUi: options.temporalUi, ...(problem ? { problem } : {}), ...extra };
  };

  app.get('/static/inbox.js', (c) => c.body(INBOX_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/static/inbox.css', (c) => c.body(INBOX_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));

  app.get('/', async (c) => {
    const answered = c.req.query('answered');
    const action = c.req.query('action');
    const notice = answered ? `Request ${answered}: ${action ?? 'answered'}.` : undefined;
    return c.html(pageHtml(await state(notice ? { notice } : {})));
  });
  app.get('/fragment', async (c) => c.html(rowsHtml(await state())));
  app.get('/api/requests', async (c) => {
    const s = await state();
    return c.json({ namespace: s.namespace, rows: s.rows, ...(s.problem ? { problem: s.problem } : {}) });
  });

  /** Submit an answer; the workflow's verdict as an HTTP status and message. */
  const submit = async (workflowId: string, answer: Answer) => {
    try {
      return { ok: true as const, result: await dmc.submit(workflowId, answer) };
    } catch (err) {
      if (err instanceof InvalidAnswerError) return { ok: false as const, status: 422 as const, reason: err.reason };
      if (err instanceof NoSuchPendingRequestError) return { ok: false as const, status: 409 as const, reason: err.detail };
      if (err instanceof UnknownWorkflowError) return { ok: false as const, status: 404 as const, reason: err.message };
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
    let answer: Answer;
    let fieldKeys: string[] = [];
    if (action === 'decline') answer = { id: requestId, ok: false, reason: 'declined' };
    else if (action === 'cancel') answer = { id: requestId, ok: false, reason: 'cancelled' };
    else {
      const details = await dmc.pendingDetails(workflowId, { timeoutMs: queryTimeoutMs }).catch(() => undefined);
      const request = details?.find((d) => d.request.id === requestId)?.request;
      if (!request) return rejectedPage(c, 409, `Request ${requestId} is no longer pending (answered elsewhere, expired, or its workflow is unreachable).`);
      if (request.kind === 'input') {
        const fields = schemaFields((request.data as { schema?: unknown } | undefined)?.schema);
        fieldKeys = fields.map((f) => f.key);
        answer = { id: requestId, ok: true, data: postedToContent(fields, posted) };
      } else answer = { id: requestId, ok: true };
    }
    const verdict = await submit(workflowId, answer);
    if (verdict.ok) return c.redirect(`/?answered=${encodeURIComponent(requestId)}&action=${verdict.result.action}`, 303);
    if (verdict.status !== 422) return rejectedPage(c, verdict.status, `Request ${requestId}: ${verdict.reason}`);
    const split = rejectionByField(verdict.reason, fieldKeys);
    return c.html(
      pageHtml(await state({ rejected: { workflowId, requestId, posted, fields: split.fields, ...(split.general ? { general: split.general } : {}) } })),
      422,
    );
  });
  const rejectedPage = async (c: Context, status: 404 | 409, notice: string) => c.html(pageHtml(await state({ notice })), status);

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
    const verdict = await submit(body.workflowId, body.answer as Answer);
    return verdict.ok ? c.json(verdict.result) : c.json({ error: verdict.reason }, verdict.status);
  });
  return app;
}

/** Serve the inbox. Refuses a non-loopback address without a token. */
export async function startInbox(options: InboxOptions): Promise<InboxHandle> {
  const host = options.host ?? DEFAULT_INBOX_HOST;
  const port = options.port ?? DEFAULT_INBOX_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InboxOptionError(`port must be a whole number from 0 to 65535, got ${JSON.stringify(port)}`);
  const token = options.token ?? (process.env[INBOX_TOKEN_ENV] || undefined);
  if (!isLoopback(host) && !token) throw new InboxTokenRequiredError(host);
  const app = createInboxApp({ ...options, token });
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s));
    s.once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
