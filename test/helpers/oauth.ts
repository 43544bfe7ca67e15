/**
 * The OAuth tests' one setup (docs/oauth.md): the fixture (oidc-provider in front of MCP servers that require bearer
 * tokens; test/fixtures/oauth-server.ts), a dev server, the inbox with its /oauth/callback, a worker, and headless
 * Chromium signing in and consenting on oidc-provider's own pages. `oauthSuite` registers the suite's before/after;
 * its options add more fixtures, an https front for the inbox, and a worker without a codec.
 */
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { rootFailure } from '../../src/client/errors.js';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import type { Request } from '../../src/contract/index.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../../src/mcp/index.js';
import { mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import type { DurableMcpWorker, OAuthWorkerOptions } from '../../src/worker.js';
import { oauthServerPath, startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { eventually, startWorker, tempDir, testEnvironment, uniqueTaskQueue, type TestEnv } from './temporal.js';
import { selfSignedCert, startTlsProxy, type TlsProxy } from './tls-proxy.js';

export interface OAuthFixture {
  /** The v2 SDK server (stateless streamable HTTP, both eras). */
  mcp: string;
  /** The v1 SDK server in the legacy era (sessions, `elicitation/create`). */
  legacy: string;
  /** The v1 SDK server over the old HTTP+SSE transport only. */
  sse: string;
  /** With FIXTURE_TASKS_UPSTREAM: the task server behind the bearer gate (test/fixtures/task-server.ts, forwarded). */
  tasks?: string;
  issuer: string;
  close(): Promise<void>;
  stats(): Promise<Record<string, number>>;
  control(path: '/__expire-access' | '/__revoke-refresh' | '/__wrong-iss'): Promise<void>;
}

export async function startOAuthFixture(env: Record<string, string> = {}): Promise<OAuthFixture> {
  const fx: HttpFixture = await startHttpFixture({ script: oauthServerPath, env });
  const urls = JSON.parse(fx.url) as { mcp: string; legacy: string; sse: string; tasks?: string; issuer: string };
  const base = new URL(urls.mcp).origin;
  return {
    ...urls,
    close: () => fx.close(),
    stats: async () => (await (await fetch(`${base}/__stats`)).json()) as Record<string, number>,
    control: async (path) => {
      await fetch(`${base}${path}`, { method: 'POST' });
    },
  };
}

/**
 * The `auth` of the tests' servers: oidc-provider and the MCP servers listen on loopback, which the OAuth flow fetches
 * from only when the config allows it (`allowPrivateNetwork`).
 */
export const LOOPBACK_AUTH = { allowPrivateNetwork: true } as const;

/** An MCP config of `names`, each a server at `url` behind OAuth (a shared login; per call for those in `perCall`). */
export function oauthServers(url: string, names: Iterable<string>, perCall: readonly string[] = []): Record<string, unknown> {
  return {
    mcpServers: Object.fromEntries(
      [...names].map((name) => [name, { url, auth: { ...LOOPBACK_AUTH, ...(perCall.includes(name) ? { principal: 'per-call' } : {}) } }]),
    ),
  };
}

/** The type and message of the root failure of a call (or listing) expected to fail; throws when it finished. */
export async function failureOf(result: Promise<unknown>): Promise<{ type: string; message: string }> {
  try {
    await result;
  } catch (err) {
    return rootFailure(err);
  }
  throw new Error('the call finished, but it was expected to fail');
}

/** Chromium signs in and consents on oidc-provider's own pages; returns the inbox's callback page's heading. */
/** On `page`: the authorization server's sign-in at `url` as `login`, then its consent, up to the worker's callback page (left open). */
export async function signInOnPage(page: Page, url: string, login = 'ada', password = 'any password'): Promise<void> {
  await page.goto(url);
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
  await page.waitForSelector('button[type="submit"]');
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/oauth\/callback/);
}

export async function signIn(browser: Browser, url: string, login = 'ada'): Promise<string> {
  const page = await browser.newPage();
  try {
    await signInOnPage(page, url, login);
    return (await page.textContent('h1')) ?? '';
  } finally {
    await page.close();
  }
}

export interface OAuthSuiteOptions {
  /** The task queue's prefix. */
  name: string;
  /**
   * `codec` (default): the payload codec with a key of the suite's own, the logins' seal derived from it (as
   * `durable-mcp worker` with DURABLE_MCP_ENCRYPTION_KEYS); `dev`: no codec (plaintext history) and the seal from a key
   * file (as `dev` without a key).
   */
  encryption?: 'codec' | 'dev';
  /** The fixture's environment, given the inbox's callback (a pre-registered client names it). */
  fixtureEnv?: (redirectUrl: string) => Record<string, string>;
  /** More fixtures (each an authorization server of its own), by name, with their environments. */
  fixtures?: Record<string, Record<string, string>>;
  /**
   * The inbox behind an https front (test/helpers/tls-proxy.ts: a TLS-terminating proxy with a self-signed certificate)
   * whose URL is the inbox's public URL (`publicUrl`): the inbox serves its Client ID Metadata Document there, the worker
   * is given that URL (`oauth.inboxPublicUrl`) instead of a redirect URL, the fixtures trust the certificate (as an
   * authorization server trusts a public one), and Chromium ignores certificate errors.
   */
  httpsInbox?: boolean;
  /**
   * Also a worker without a codec (plaintext payloads, as the committed histories are recorded; the logins' seal the
   * suite's) on a task queue of its own, with the suite's MCP config, a client without a codec and an inbox of its own
   * (a login whose payloads are plaintext takes its code from an inbox that writes plaintext): `plain`.
   */
  plainWorker?: boolean;
  /** The worker's MCP config, given the fixtures and the inbox. */
  mcpConfig: (s: { fixture: OAuthFixture; fixtures: Record<string, OAuthFixture>; inbox: InboxHandle }) => Record<string, unknown>;
  /** Launch Chromium (default true); the suites whose tests need no sign-in on a page skip it. */
  browser?: boolean;
  /** More of the worker's `oauth` options (its redirect URL and seal are the suite's). */
  oauth?: Omit<OAuthWorkerOptions, 'redirectUrl' | 'seal'>;
}

/** The suite's worker without a codec (`plainWorker`): its task queue, its client and its inbox. */
export interface PlainWorker {
  readonly client: Client;
  readonly taskQueue: string;
  readonly inbox: InboxHandle;
}

export interface OAuthSuite {
  readonly env: TestWorkflowEnvironment;
  /** The dev server's metrics port (./server-metrics.ts). */
  readonly metricsPort: number;
  readonly fixture: OAuthFixture;
  /** The `fixtures` option's, by name. */
  readonly fixtures: Record<string, OAuthFixture>;
  readonly inbox: InboxHandle;
  /** The inbox's URL as browsers and authorization servers reach it: its https front's with `httpsInbox`, else its own. */
  readonly publicUrl: string;
  readonly worker: DurableMcpWorker;
  readonly browser: Browser;
  readonly taskQueue: string;
  /** The inbox's /oauth/callback (under `publicUrl`). */
  readonly redirectUrl: string;
  /** The worker's MCP config (for more workers). */
  readonly mcpConfig: Record<string, unknown>;
  /** `encryption: 'codec'`: the key, as DURABLE_MCP_ENCRYPTION_KEYS says it. */
  readonly keyText: string;
  /** `encryption: 'codec'`: the payload codec (for more workers). */
  readonly codec: EncryptionCodec | undefined;
  readonly seal: CredentialSeal;
  /** The environment of a `durable-mcp` CLI process for this suite's dev server, task queue and key. */
  readonly cliEnv: Record<string, string>;
  /** `plainWorker`: the worker without a codec. */
  readonly plain: PlainWorker;
  /** `plainWorker`: stop the worker without a codec (its inbox keeps serving), until `startPlainWorker()`. */
  stopPlainWorker(): Promise<void>;
  startPlainWorker(): Promise<void>;
  /** The login workflow of a server (and principal). */
  login(server: string, principal?: string): WorkflowHandle;
  /** The login's pending sign-in request (the first whose id is not `notId`), once there is one. */
  pendingSignIn(server: string, options?: { principal?: string; notId?: string }): Promise<Request>;
  /** Starts an `mcpToolCall` of `tool` on this suite's task queue. */
  call(
    server: string,
    tool: string,
    args?: Record<string, unknown>,
    extra?: { workflowId?: string; principal?: string; expiresIn?: string },
  ): Promise<WorkflowHandle<typeof mcpToolCall>>;
  /** Chromium signs in on the authorization server's pages (see `signIn`). */
  signIn(url: string, login?: string): Promise<string>;
}

let calls = 0;

/**
 * One server name a test, so that a test's sign-ins and refreshes do not disturb another's: each key's name is
 * `prefix`, the key in lower case and this process's id (e.g. `taskexpiry1234`).
 */
export function oneLoginEach<K extends string>(prefix: string, keys: readonly K[]): Record<K, string> {
  return Object.fromEntries(keys.map((k) => [k, `${prefix}${k.toLowerCase()}${process.pid}`])) as Record<K, string>;
}

/** Registers the suite's before/after: dev server, inbox, fixture, worker, Chromium (in that order), all closed after. */
export function oauthSuite(options: OAuthSuiteOptions): OAuthSuite {
  const taskQueue = uniqueTaskQueue(options.name);
  const keyText = generateEncryptionKey('k1');
  const dev = options.encryption === 'dev';
  const codec = dev ? undefined : new EncryptionCodec(parseEncryptionKeys(keyText, 'test'));
  const seal = codec ? new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL)) : CredentialSeal.fromKeyFile(join(tempDir(), 'oauth-credentials.key'));
  const tls = options.httpsInbox ? selfSignedCert() : undefined;
  const s: {
    t?: TestEnv;
    fixture?: OAuthFixture;
    fixtures: Record<string, OAuthFixture>;
    proxy?: TlsProxy;
    inbox?: InboxHandle;
    worker?: DurableMcpWorker;
    running?: Promise<void>;
    plain?: PlainWorker & { worker?: DurableMcpWorker; running?: Promise<void> };
    browser?: Browser;
    mcpConfig?: Record<string, unknown>;
  } = { fixtures: {} };
  const must = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`oauthSuite: ${what} is only available once the suite's before hook ran`);
    return v;
  };
  const publicUrl = () => s.proxy?.url ?? must(s.inbox, 'inbox').url;
  const redirectUrl = () => new URL('oauth/callback', publicUrl()).href;
  const sealCode = (code: string) => seal.seal({ code });
  const startFixture = (env: Record<string, string>) => startOAuthFixture({ ...env, ...(tls ? { NODE_EXTRA_CA_CERTS: tls.certPath } : {}) });
  // No redirect URL behind the https front: the worker's logins come back to the inbox's public callback, and name its document.
  const callbackOptions = () => (s.proxy ? { inboxPublicUrl: s.proxy.url } : { redirectUrl: redirectUrl() });

  /** The worker without a codec, on the plain task queue, its sign-ins coming back to the plain inbox. */
  const startPlainWorker = async () => {
    const plain = must(s.plain, 'plain');
    if (plain.worker) throw new Error('oauthSuite: the plain worker runs already');
    const worker = await startWorker(must(s.t, 'env').env, {
      taskQueue: plain.taskQueue,
      encryption: false,
      mcpConfig: must(s.mcpConfig, 'mcpConfig'),
      oauth: { ...options.oauth, seal, redirectUrl: new URL('oauth/callback', plain.inbox.url).href },
    });
    Object.assign(plain, { worker, running: worker.run() });
  };
  const stopPlainWorker = async () => {
    const plain = must(s.plain, 'plain');
    const { worker, running } = plain;
    plain.worker = plain.running = undefined;
    worker?.shutdown();
    await running;
  };

  before(async () => {
    // The suite's workers need the inbox and the fixtures first (their config names them): the environment starts none.
    s.t = await testEnvironment({ taskQueue, searchAttributes: true, encryption: codec ?? false, metrics: true, startWorker: false });
    const env = s.t.env;
    let inboxOrigin = 'http://127.0.0.1:1';
    if (tls) s.proxy = await startTlsProxy(tls, () => inboxOrigin);
    s.inbox = await startInbox({
      client: env.client,
      host: '127.0.0.1',
      port: 0,
      sealCode,
      stateMac: seal.stateMac(),
      ...(s.proxy ? { publicUrl: s.proxy.url } : {}),
    });
    inboxOrigin = s.inbox.url;
    s.fixture = await startFixture(options.fixtureEnv?.(redirectUrl()) ?? {});
    for (const [name, fixtureEnv] of Object.entries(options.fixtures ?? {})) s.fixtures[name] = await startFixture(fixtureEnv);
    s.mcpConfig = options.mcpConfig({ fixture: s.fixture, fixtures: s.fixtures, inbox: s.inbox });
    s.worker = await startWorker(env, {
      taskQueue,
      encryption: codec ?? false,
      mcpConfig: s.mcpConfig,
      oauth: { ...options.oauth, ...callbackOptions(), ...(dev ? { seal } : {}) },
    });
    s.running = s.worker.run();
    if (options.plainWorker) {
      const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
      const inbox = await startInbox({ client, host: '127.0.0.1', port: 0, sealCode, stateMac: seal.stateMac() });
      s.plain = { client, taskQueue: `${taskQueue}-plain`, inbox };
      await startPlainWorker();
    }
    const browserArgs = tls ? [...CHROMIUM_ARGS, '--ignore-certificate-errors'] : CHROMIUM_ARGS;
    if (options.browser !== false) s.browser = await chromium.launch({ executablePath: CHROMIUM, args: browserArgs });
    // A client's listTools refuses at once when no worker polls the task queue: the tests start once this worker's poll shows.
    await eventually(async () => {
      const namespace = env.namespace ?? 'default';
      const q = await env.client.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 });
      return (q.pollers ?? []).length > 0;
    }, `a poller on task queue ${taskQueue}`);
  });
  after(async () => {
    await s.browser?.close();
    s.worker?.shutdown();
    const stopping = s.plain ? stopPlainWorker() : undefined;
    await s.running;
    await stopping;
    await s.plain?.inbox.close();
    await s.inbox?.close();
    await s.proxy?.close();
    await s.fixture?.close();
    for (const fixture of Object.values(s.fixtures)) await fixture.close();
    await s.t?.teardown();
  });

  const suite: OAuthSuite = {
    get env() {
      return must(s.t, 'env').env;
    },
    get metricsPort() {
      return must(s.t, 'metricsPort').metricsPort;
    },
    get fixture() {
      return must(s.fixture, 'fixture');
    },
    get fixtures() {
      return s.fixtures;
    },
    get inbox() {
      return must(s.inbox, 'inbox');
    },
    get publicUrl() {
      return publicUrl();
    },
    get worker() {
      return must(s.worker, 'worker');
    },
    get browser() {
      return must(s.browser, 'browser');
    },
    taskQueue,
    get redirectUrl() {
      return redirectUrl();
    },
    get mcpConfig() {
      return must(s.mcpConfig, 'mcpConfig');
    },
    keyText,
    codec,
    seal,
    get cliEnv() {
      return {
        TEMPORAL_ADDRESS: suite.env.address,
        TEMPORAL_NAMESPACE: suite.env.namespace ?? 'default',
        DURABLE_MCP_TASK_QUEUE: taskQueue,
        ...(codec ? { DURABLE_MCP_ENCRYPTION_KEYS: keyText } : {}),
      };
    },
    get plain() {
      if (!options.plainWorker) throw new Error('oauthSuite: plain is the worker of the option plainWorker, which this suite does not set');
      return must(s.plain, 'plain');
    },
    stopPlainWorker,
    startPlainWorker,
    login: (server, principal) => suite.env.client.workflow.getHandle(loginWorkflowId(server, principal)),
    pendingSignIn: async (server, { principal, notId } = {}) =>
      eventually(async () => (await suite.login(server, principal).query(pendingQuery)).find((r) => r.id !== notId), `the sign-in request of "${server}"`),
    call: (server, tool, args, extra = {}) =>
      suite.env.client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: extra.workflowId ?? `oauth-${server}-${tool}-${process.pid}-${++calls}-${Date.now()}`,
        args: [
          {
            server,
            tool,
            ...(args ? { arguments: args } : {}),
            ...(extra.principal !== undefined ? { auth: { principal: extra.principal } } : {}),
            ...(extra.expiresIn ? { elicitation: { expiresIn: extra.expiresIn } } : {}),
          },
        ],
      }),
    signIn: (url, login) => signIn(suite.browser, url, login),
  };
  return suite;
}
