/**
 * The OAuth tests' one setup (docs/oauth.md): the fixture (oidc-provider in front of MCP servers that require bearer
 * tokens; test/fixtures/oauth-server.ts), a dev server, the inbox with its /oauth/callback, a worker, and headless
 * Chromium signing in and consenting on oidc-provider's own pages. `oauthSuite` registers the suite's before/after.
 */
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { chromium, type Browser } from 'playwright-core';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/client/codec.js';
import type { Request } from '../../src/contract/index.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../../src/mcp/index.js';
import { mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import type { DurableMcpWorker, OAuthWorkerOptions } from '../../src/worker.js';
import { oauthServerPath, startHttpFixture, type HttpFixture } from '../fixtures/paths.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { createLocalEnv, eventually, startWorker, tempDir, uniqueTaskQueue } from './temporal.js';

export interface OAuthFixture {
  /** The v2 SDK server (stateless streamable HTTP, both eras). */
  mcp: string;
  /** The v1 SDK server in the legacy era (sessions, `elicitation/create`). */
  legacy: string;
  /** The v1 SDK server over the old HTTP+SSE transport only. */
  sse: string;
  issuer: string;
  close(): Promise<void>;
  stats(): Promise<Record<string, number>>;
  control(path: '/__expire-access' | '/__revoke-refresh' | '/__wrong-iss'): Promise<void>;
}

export async function startOAuthFixture(env: Record<string, string> = {}): Promise<OAuthFixture> {
  const fx: HttpFixture = await startHttpFixture({ script: oauthServerPath, env });
  const urls = JSON.parse(fx.url) as { mcp: string; legacy: string; sse: string; issuer: string };
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

/** Chromium signs in and consents on oidc-provider's own pages; returns the inbox's callback page's heading. */
export async function signIn(browser: Browser, url: string, login = 'ada'): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button[type="submit"]');
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/oauth\/callback/);
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
  /** The worker's MCP config, given the fixture and the inbox. */
  mcpConfig: (s: { fixture: OAuthFixture; inbox: InboxHandle }) => Record<string, unknown>;
  /** More of the worker's `oauth` options (its redirect URL and seal are the suite's). */
  oauth?: Omit<OAuthWorkerOptions, 'redirectUrl' | 'seal'>;
}

export interface OAuthSuite {
  readonly env: TestWorkflowEnvironment;
  readonly fixture: OAuthFixture;
  readonly inbox: InboxHandle;
  readonly worker: DurableMcpWorker;
  readonly browser: Browser;
  readonly taskQueue: string;
  /** The inbox's /oauth/callback. */
  readonly redirectUrl: string;
  /** The worker's MCP config (for more workers). */
  readonly mcpConfig: Record<string, unknown>;
  /** `encryption: 'codec'`: the key, as DURABLE_MCP_ENCRYPTION_KEYS says it. */
  readonly keyText: string;
  readonly seal: CredentialSeal;
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

/** Registers the suite's before/after: dev server, inbox, fixture, worker, Chromium (in that order), all closed after. */
export function oauthSuite(options: OAuthSuiteOptions): OAuthSuite {
  const taskQueue = uniqueTaskQueue(options.name);
  const keyText = generateEncryptionKey('k1');
  const dev = options.encryption === 'dev';
  const codec = dev ? undefined : new EncryptionCodec(parseEncryptionKeys(keyText, 'test'));
  const seal = codec ? new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL)) : CredentialSeal.fromKeyFile(join(tempDir(), 'oauth-credentials.key'));
  const s: {
    env?: TestWorkflowEnvironment;
    fixture?: OAuthFixture;
    inbox?: InboxHandle;
    worker?: DurableMcpWorker;
    running?: Promise<void>;
    browser?: Browser;
    mcpConfig?: Record<string, unknown>;
  } = {};
  const must = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`oauthSuite: ${what} is only available once the suite's before hook ran`);
    return v;
  };
  const redirectUrl = () => new URL('oauth/callback', must(s.inbox, 'inbox').url).href;

  before(async () => {
    s.env = await createLocalEnv({ searchAttributes: true, encryption: codec ?? false });
    s.inbox = await startInbox({ client: s.env.client, host: '127.0.0.1', port: 0, sealCode: (code) => seal.seal({ code }) });
    s.fixture = await startOAuthFixture(options.fixtureEnv?.(redirectUrl()) ?? {});
    s.mcpConfig = options.mcpConfig({ fixture: s.fixture, inbox: s.inbox });
    s.worker = await startWorker(s.env, {
      taskQueue,
      encryption: codec ?? false,
      mcpConfig: s.mcpConfig,
      oauth: { ...options.oauth, redirectUrl: redirectUrl(), ...(dev ? { seal } : {}) },
    });
    s.running = s.worker.run();
    s.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await s.browser?.close();
    s.worker?.shutdown();
    await s.running;
    await s.inbox?.close();
    await s.fixture?.close();
    await s.env?.teardown();
  });

  const suite: OAuthSuite = {
    get env() {
      return must(s.env, 'env');
    },
    get fixture() {
      return must(s.fixture, 'fixture');
    },
    get inbox() {
      return must(s.inbox, 'inbox');
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
    seal,
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
