/**
 * The inbox web server (Hono on Node): the page (filters, pages by cursor, a history of resolved requests), plain form
 * posts that answer through `submitAnswer`, live updates pushed by server-sent events from one refresh loop per process
 * (src/inbox/live.ts), a fragment for browsers without them, and a small JSON API. Everything listed comes from
 * visibility (src/client/listing.ts); a worker is asked only when a request is answered. Loopback by default; any other
 * bind address needs a token (DURABLE_MCP_INBOX_TOKEN), and then every page and API call requires it.
 */
import type { Client } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import { DurableMcpClient } from '../client/index.js';
import { LIST_QUERY_TIMEOUT_MS } from '../client/list-options.js';
import { accessGuard, isLoopback, sameOriginPath } from '../codec/access.js';
import { personLabel } from '../contract/assignees.js';
import { stripControlChars } from '../contract/control-chars.js';
import type { AnswerSource } from '../workflows/messages.js';
import { clientAddress, ConnectionCap, postBodyLimit, type RateOptions } from '../codec/limits.js';
import { listen } from '../codec/listen.js';
import type { StateMac } from '../codec/state-mac.js';
import { installAnswer } from './answer.js';
import { InboxError, InboxErrorCodes } from './errors.js';
import { INBOX_CSS, INBOX_JS } from './assets.js';
import { inboxPublication, installClientMetadata } from './client-metadata.js';
import { installHistory } from './history.js';
import { LiveHub, RecentlyAnswered } from './live.js';
import { callbackWarning, installOAuthCallback, type CodeSealer } from './oauth-callback.js';
import { noticeOf, pageHtml, rowsHtml } from './page.js';
import { ANSWER_LINK_KEY_ENV, ANSWER_LINK_PATH } from '../codec/answer-link.js';
import { installAnswerLinks } from './answer-link.js';
import { SignOuts } from './sign-outs.js';
import { installSignOut, oidcSignIn, SIGN_IN_PATH, type OidcSignInOptions, type SignIn } from './sign-in.js';
import { pageStates, setPerson, signedInPerson, viewOf } from './view.js';
import { installWorking } from './working.js';

export const DEFAULT_INBOX_HOST = '127.0.0.1';
export const DEFAULT_INBOX_PORT = 8787;
export const INBOX_TOKEN_ENV = 'DURABLE_MCP_INBOX_TOKEN';
/** Who answers through this inbox, when no trusted header says: the label of the token's holder (default "inbox"). */
export const INBOX_USER_ENV = 'DURABLE_MCP_INBOX_USER';
/** What a page keeps of the control characters: its own whitespace. */
const PAGE_WHITESPACE = '\n\r\t';

/** A request header set by a trusted reverse proxy with the signed-in person (e.g. X-Forwarded-User); unset: none is trusted. */
export const INBOX_USER_HEADER_ENV = 'DURABLE_MCP_INBOX_USER_HEADER';
const COOKIE = 'durable_mcp_inbox_session';
/** The largest body of a POST (an answer's form or JSON): 413 beyond. */
export const DEFAULT_INBOX_MAX_BODY_BYTES = 256 * 1024;
/** Live-update streams (`/events`) one client address may hold open: 429 beyond. */
export const DEFAULT_EVENT_STREAMS_PER_CLIENT = 16;

function tokenRequired(host: string): InboxError {
  return new InboxError(
    InboxErrorCodes.TokenRequired,
    `the inbox refuses to listen on ${host} without a token: set ${INBOX_TOKEN_ENV} (every page and API call then needs it), or bind to 127.0.0.1`,
    host,
  );
}

function proxyNeedsToken(host: string, header: string): InboxError {
  return new InboxError(
    InboxErrorCodes.TokenRequired,
    `the inbox refuses to listen on ${host} with userHeader (${INBOX_USER_HEADER_ENV}=${header}) and no token: anyone reaching it ` +
      `could send that header. Set ${INBOX_TOKEN_ENV} (the proxy then sends "Authorization: Bearer …" with the header), ` +
      'or bind to 127.0.0.1 behind the proxy',
    host,
  );
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
  /**
   * Checks the `state` of a sign-in coming back (the MAC the workers sign it with; src/codec/state-mac.ts). Without it the
   * callback refuses every sign-in, before Temporal: `durable-mcp inbox` derives it as the workers do.
   */
  stateMac?: StateMac;
  /** The callback's rate per client address (default: 10 at once, then one every 2 seconds). */
  callbackRate?: RateOptions;
  /** The largest body of a POST in bytes (default 256 KiB): 413 beyond. */
  maxBodyBytes?: number;
  /** Live-update streams one client address may hold open (default 16): 429 beyond. */
  maxEventStreamsPerClient?: number;
  /** Who answers, as recorded beside each answer, when `userHeader` does not say (default: $DURABLE_MCP_INBOX_USER, else "inbox"). */
  user?: string;
  /**
   * A request header a trusted reverse proxy sets to the signed-in person (default: $DURABLE_MCP_INBOX_USER_HEADER). Only
   * set it behind such a proxy: anyone who reaches the inbox directly could send the header. On a non-loopback address it
   * needs `token` too (the inbox refuses to start without it): the proxy sends both.
   */
  userHeader?: string;
  /** How often the one refresh loop of this inbox reads visibility while a page is open (default 1,500 ms). */
  refreshMs?: number;
  /**
   * The inbox's public base URL, where browsers and authorization servers reach it (default: $DURABLE_MCP_INBOX_PUBLIC_URL).
   * An https one serves the Client ID Metadata Document of the logins (`oauth/client-metadata.json` under it), and makes
   * the session cookie `Secure` (behind a TLS proxy); its path scopes the cookie.
   */
  publicUrl?: string;
  /**
   * Sign-in with OpenID Connect (docs/people.md): people sign in at the issuer, see the requests they may answer, and are
   * refused (403) on a request not addressed to them. The token (when set) still lets machines in, answering as `user`.
   */
  signIn?: OidcSignInOptions;
  /**
   * The key of the signed answer links that notifications carry (docs/people.md; at least 32 characters; default:
   * $DURABLE_MCP_ANSWER_LINK_KEY): the worker's `notify.linkKey` must be the same. Unset: links are refused.
   */
  answerLinkKey?: string;
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
  const signIn = options.signIn ? oidcSignIn(options.signIn, options.publicUrl) : undefined;
  /** Who answers: the signed-in person (their label says oidc), else the proxy's header, else the token's holder. */
  const whoAnswers = (c: Context): { by: string; source: AnswerSource; person?: string } => {
    const person = signIn?.personOf(c);
    // N of M counts the person (docs/people.md) by who vouched for them and who they are to that issuer: issuer and
    // subject, whatever scopes the sign-in asked for (an email is a way to address a person, never to count one).
    if (person) return { by: personLabel(person), source: 'oidc', person: `${person.issuer ?? ''}#${person.subject}` };
    const fromProxy = userHeader ? c.req.header(userHeader)?.trim() : undefined;
    return fromProxy ? { by: fromProxy.slice(0, 200), source: 'proxy' } : { by: user, source: 'token' };
  };
  const published = inboxPublication(options.publicUrl);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_INBOX_MAX_BODY_BYTES;
  const streams = new ConnectionCap(options.maxEventStreamsPerClient ?? DEFAULT_EVENT_STREAMS_PER_CLIENT);
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
  // No control character of a server's or a model's text reaches a page (a bidi override reorders what a person
  // reads): every HTML response, and every fragment pushed live below, goes through one filter (docs/security.md).
  app.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.get('content-type')?.startsWith('text/html')) return;
    const { status } = c.res;
    const text = await c.res.text();
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    // Cleared first: Hono's setter would copy the old response's headers (its length among them) onto the new one.
    c.res = undefined as unknown as Response;
    c.res = new Response(stripControlChars(text, PAGE_WHITESPACE), { status, headers });
  });
  app.use(
    '*',
    postBodyLimit(maxBodyBytes, (c, message) => c.text(message, 413)),
  );
  // Before the access check: the browser comes back from the authorization server without the inbox's cookie; the
  // sign-in's state (signed by the worker, checked here before Temporal; single use) is what authorizes it.
  installOAuthCallback(app, client, {
    ...(options.sealCode ? { sealCode: options.sealCode } : {}),
    ...(options.stateMac ? { stateMac: options.stateMac } : {}),
    ...(options.callbackRate ? { rate: options.callbackRate } : {}),
  });
  installClientMetadata(app, published);
  signIn?.install(app);
  // Before the access check too: a signed answer link is its own credential (one request, one assignee, once).
  const answerLinkKey = options.answerLinkKey ?? (process.env[ANSWER_LINK_KEY_ENV] || undefined);
  if (answerLinkKey !== undefined && answerLinkKey.length < 32)
    throw new InboxError(InboxErrorCodes.InvalidOption, `answerLinkKey (${ANSWER_LINK_KEY_ENV}) must be at least 32 characters`);
  const answered = new RecentlyAnswered();
  const state = pageStates(dmc, answered, queryTimeoutMs, options.temporalUi);
  /** The one refresh loop of this inbox: it reads each open view's first page and pushes changes to every tab showing it. */
  const live = new LiveHub(async (view) => stripControlChars(String(await rowsHtml(await state(view))), PAGE_WHITESPACE), options.refreshMs ?? 1_500);
  if (answerLinkKey !== undefined) {
    app.use(`${ANSWER_LINK_PATH}*`, csrf());
    installAnswerLinks(app, answerLinkKey, { dmc, answered, live });
  }
  const signOuts = new SignOuts(client);
  installAccess(app, { signIn, signOuts, token, userHeader, ...(published ? { publicUrl: published.base } : {}) });
  // Form posts must come from this page (Origin / Sec-Fetch-Site), not from another site.
  app.use('*', csrf());

  app.get('/static/inbox.js', (c) => c.body(INBOX_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/static/inbox.css', (c) => c.body(INBOX_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));

  app.get('/', async (c) => {
    // A notice from a fixed list, picked by the query: nothing of the query is shown.
    const notice = c.req.query('answered') !== undefined ? noticeOf(c.req.query('action')) : undefined;
    return c.html(pageHtml(await state(viewOf(c), notice ? { notice } : {})));
  });
  app.get('/fragment', async (c) => c.html(rowsHtml(await state(viewOf(c)))));
  installEvents(app, live, streams);
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
  installHistory(app, client, dmc, options.temporalUi);
  installWorking(app, client, queryTimeoutMs);
  installAnswer(app, { dmc, state, whoAnswers, answered, live, ...(answerLinkKey !== undefined ? { proofKey: answerLinkKey } : {}) });
  if (signIn) installSignOut(app, signIn, (sid, exp) => signOuts.revoke(sid, exp), options.publicUrl);
  return Object.assign(app, { closeLive: () => live.close() });
}

/** `GET /events`: live updates of a view, from the one loop; at most `streams.max` open per client address (429 beyond). */
function installEvents(app: Hono, live: LiveHub, streams: ConnectionCap): void {
  app.get('/events', (c) => {
    const { cursor: _cursor, ...view } = viewOf(c);
    const leaveCap = streams.enter(clientAddress(c));
    if (!leaveCap) {
      c.header('Retry-After', '30');
      return c.text(`too many live-update streams from this address (at most ${streams.max}): close some tabs of this inbox`, 429);
    }
    return streamSSE(c, async (stream) => {
      await new Promise<void>((resolve) => {
        const leave = live.join(view, (event, data) => {
          stream.writeSSE({ event, data }).catch(() => undefined);
        });
        stream.onAbort(() => {
          leave();
          leaveCap();
          resolve();
        });
      });
    });
  });
}

/** Serve the inbox. Refuses a non-loopback address without a token. */
export async function startInbox(options: InboxOptions): Promise<InboxHandle> {
  const host = options.host ?? DEFAULT_INBOX_HOST;
  const port = options.port ?? DEFAULT_INBOX_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InboxError(InboxErrorCodes.InvalidOption, `port must be a whole number from 0 to 65535, got ${JSON.stringify(port)}`);
  const token = options.token ?? (process.env[INBOX_TOKEN_ENV] || undefined);
  if (!isLoopback(host) && !token && !options.signIn) throw tokenRequired(host);
  // Anyone who reaches a non-loopback address could send the proxy's header (and any Host): it needs the token beside it.
  const userHeader = options.userHeader ?? (process.env[INBOX_USER_HEADER_ENV] || undefined);
  if (!isLoopback(host) && !token && userHeader) throw proxyNeedsToken(host, userHeader);
  const published = inboxPublication(options.publicUrl);
  const app = createInboxApp({ ...options, token }) as ReturnType<typeof createInboxApp> & { closeLive(): void };
  const listening = await listen(app.fetch, host, port);
  return {
    url: `${listening.origin}/`,
    ...(published?.clientMetadataUrl ? { clientMetadataUrl: published.clientMetadataUrl } : {}),
    warnings: [
      ...(published?.noDocument ? [published.noDocument] : []),
      ...(options.sealCode ? [callbackWarning(options)].filter((w) => w !== undefined) : []),
    ],
    close: () => {
      app.closeLive();
      return listening.close();
    },
  };
}

/**
 * Who may use the inbox, and who a request comes from: a valid session of the sign-in, or a proxy's header (both checked
 * against assignees); the token's holder is the operator or a machine (not checked). With sign-in, a page opened with
 * neither a session nor the token goes to sign in; without it, the token (or loopback without one), as before.
 */
function installAccess(
  app: Hono,
  o: { signIn: SignIn | undefined; signOuts: SignOuts; token: string | undefined; userHeader: string | undefined; publicUrl?: string },
): void {
  const toSignIn = (c: Context): Response | undefined => {
    const url = new URL(c.req.url);
    if (c.req.method !== 'GET' || url.pathname.startsWith('/api/') || url.pathname === '/events') return undefined;
    return c.redirect(`${SIGN_IN_PATH}?next=${encodeURIComponent(sameOriginPath(url))}`, 303);
  };
  app.use('*', async (c, next) => {
    // A proxy that sends its header blank named nobody (it failed to, or someone sent it by hand): no person, and not
    // the operator either, even with the token beside it (docs/security.md).
    const raw = o.userHeader ? c.req.header(o.userHeader) : undefined;
    if (raw !== undefined && raw.trim() === '') {
      return c.text(`the header ${o.userHeader} names no person (it is blank): the proxy must name who is signed in, or leave the header out`, 403);
    }
    const person = o.signIn?.personOf(c);
    // A session signed out on any replica is no one (src/inbox/sign-outs.ts); one sealed before sign-outs had ids
    // (none: every new session has one) ends at its expiry.
    const session = person ? o.signIn?.sessionOf(c) : undefined;
    if (person && session && (await o.signOuts.isRevoked(session.sid))) {
      c.header('WWW-Authenticate', 'Bearer realm="durable-mcp inbox"');
      return toSignIn(c) ?? c.text('this session was signed out: sign in again', 401);
    }
    if (person) {
      setPerson(c, person);
      return next();
    }
    const fromProxy = o.userHeader ? c.req.header(o.userHeader)?.trim() : undefined;
    if (fromProxy) setPerson(c, { subject: fromProxy.slice(0, 200), source: 'proxy' });
    if (o.signIn && !o.token && !fromProxy) {
      c.header('WWW-Authenticate', 'Bearer realm="durable-mcp inbox"');
      return toSignIn(c) ?? c.text('sign in to this inbox first', 401);
    }
    return next();
  });
  const guard = accessGuard({
    token: o.token,
    cookie: COOKIE,
    realm: 'durable-mcp inbox',
    what: 'inbox',
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    needsToken: `this inbox needs its token: open it once as /?token=… or send "Authorization: Bearer …" (${INBOX_TOKEN_ENV})`,
    // With sign-in, a page sends a person to sign in rather than asking for the token.
    refuse: (c, status, message) => (o.signIn && status === 401 ? toSignIn(c) : undefined) ?? c.text(message, status),
  });
  // A signed-in person is in; anyone else needs the token (or loopback without one), as before.
  app.use('*', (c, next) => (signedInPerson(c)?.source === 'oidc' ? next() : guard(c, next)));
}
