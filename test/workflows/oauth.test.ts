/**
 * Servers behind OAuth, end to end with real parts (docs/oauth.md): oidc-provider as the authorization server in front
 * of a v2 SDK MCP server that requires bearer tokens (test/fixtures/oauth-server.ts), a real dev server and worker,
 * the inbox's /oauth/callback, and headless Chromium signing in and consenting on oidc-provider's own pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium, type Browser } from 'playwright-core';
import { EncryptionCodec, parseEncryptionKeys, generateEncryptionKey } from '../../src/client/codec.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import type { Request } from '../../src/contract/index.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../../src/mcp/index.js';
import { loginStatusQuery, mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import type { DurableMcpWorker } from '../../src/worker.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';
import { createLocalEnv, eventually, startWorker, uniqueTaskQueue } from '../helpers/temporal.js';
import { oauthServerPath, startHttpFixture, type HttpFixture } from '../fixtures/paths.js';

interface OAuthFixture {
  mcp: string;
  issuer: string;
  close(): Promise<void>;
  stats(): Promise<Record<string, number>>;
  control(path: '/__expire-access' | '/__revoke-refresh'): Promise<void>;
}

export async function startOAuthFixture(env: Record<string, string> = {}): Promise<OAuthFixture> {
  const fx: HttpFixture = await startHttpFixture({ script: oauthServerPath, env });
  const { mcp, issuer } = JSON.parse(fx.url) as { mcp: string; issuer: string };
  const base = new URL(mcp).origin;
  return {
    mcp,
    issuer,
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

describe('a server behind OAuth (oidc-provider, Chromium, the inbox callback)', () => {
  let env: TestWorkflowEnvironment;
  let fixture: OAuthFixture;
  let inbox: InboxHandle;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  let browser: Browser;
  const taskQueue = uniqueTaskQueue('oauth');
  const codec = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('k1'), 'test'));
  const seal = new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL));
  const server = `crm${process.pid}`;

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: codec });
    fixture = await startOAuthFixture();
    inbox = await startInbox({ client: env.client, host: '127.0.0.1', port: 0, sealCode: (code) => seal.seal({ code }) });
    worker = await startWorker(env, {
      taskQueue,
      encryption: codec,
      mcpConfig: { mcpServers: { [server]: { url: fixture.mcp, auth: 'oauth' } } },
      oauth: { redirectUrl: new URL('oauth/callback', inbox.url).href },
    });
    running = worker.run();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    worker?.shutdown();
    await running;
    await inbox?.close();
    await fixture?.close();
    await env?.teardown();
  });

  const pendingSignIn = async (): Promise<Request> => {
    const login = env.client.workflow.getHandle(loginWorkflowId(server));
    return eventually(async () => (await login.query(pendingQuery))[0], 'the sign-in request');
  };

  it('asks once for a sign-in (an authorization request), and the call finishes after Chromium signs in', async () => {
    const call = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-first-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'hi' } }],
    });
    const request = await pendingSignIn();
    assert.equal(request.kind, 'authorization');
    assert.match(request.prompt, new RegExp(`Sign in to MCP server "${server}" at ${fixture.issuer.replace(/[.]/g, '\\.')}`));
    assert.ok(request.url?.startsWith(`${fixture.issuer}/auth?`), request.url);
    assert.equal(await signIn(browser, request.url!), 'Signed in');
    const result = await call.result();
    assert.equal(result.output, 'echo: hi');
    assert.equal(result.isError, false);
    const status = await env.client.workflow.getHandle(loginWorkflowId(server)).query(loginStatusQuery);
    assert.equal(status.state, 'signed-in');
    assert.equal(status.issuer, fixture.issuer);
    assert.equal(status.refreshable, true);
    // The next call uses the token at once: no request, no sign-in.
    const second = await env.client.workflow.execute(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-second-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'again' } }],
    });
    assert.equal(second.output, 'echo: again');
    assert.equal((await fixture.stats()).codeGrants, 1);
  });
});
