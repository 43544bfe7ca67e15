/**
 * The inbox's Client ID Metadata Document (docs/oauth.md, "Client identity"): an inbox with an https public base URL
 * serves the document whose URL is durable-mcp's client id, and the worker's logins use it where the authorization
 * server supports such documents. End to end with real parts: the inbox behind a TLS-terminating proxy (a self-signed
 * certificate of the system's openssl), oidc-provider's own implementation of the draft (it fetches the document at
 * the client id over https and checks it) in front of a v2 SDK MCP server, a dev server, a worker, Chromium.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium, type Browser } from 'playwright-core';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/client/codec.js';
import type { Request } from '../../src/contract/index.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../../src/mcp/index.js';
import { mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import { createWorker, type DurableMcpWorker } from '../../src/worker.js';
import { spawnNode } from '../../scripts/processes.js';
import { run } from '../cli/harness.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { signIn, startOAuthFixture, type OAuthFixture } from '../helpers/oauth.js';
import { createLocalEnv, eventually, startWorker, uniqueTaskQueue } from '../helpers/temporal.js';
import { selfSignedCert, startTlsProxy, type TlsProxy } from '../helpers/tls-proxy.js';

const cliMain = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

describe('the inbox serves a Client ID Metadata Document at an https public URL, and logins use it as client id (oidc-provider, Chromium)', () => {
  let env: TestWorkflowEnvironment;
  let cimdAs: OAuthFixture;
  let plainAs: OAuthFixture;
  let proxy: TlsProxy;
  let inbox: InboxHandle;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  let browser: Browser;
  const tls = selfSignedCert();
  const taskQueue = uniqueTaskQueue('oauth-cimd');
  const keyText = generateEncryptionKey('k1');
  const codec = new EncryptionCodec(parseEncryptionKeys(keyText, 'test'));
  const seal = new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL));
  const servers = { cimd: `cimd${process.pid}`, plain: `dcr${process.pid}` };

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: codec });
    // The authorization server that supports documents trusts the proxy's certificate, as it would a public one.
    cimdAs = await startOAuthFixture({ FIXTURE_CIMD: '1', NODE_EXTRA_CA_CERTS: tls.certPath });
    plainAs = await startOAuthFixture();
    let inboxOrigin = 'http://127.0.0.1:1';
    proxy = await startTlsProxy(tls, () => inboxOrigin);
    inbox = await startInbox({ client: env.client, host: '127.0.0.1', port: 0, sealCode: (code) => seal.seal({ code }), publicUrl: proxy.url });
    inboxOrigin = inbox.url;
    // No redirectUrl: the worker's logins come back to the inbox's public callback, and name its document.
    worker = await startWorker(env, {
      taskQueue,
      encryption: codec,
      mcpConfig: { mcpServers: { [servers.cimd]: { url: cimdAs.mcp, auth: 'oauth' }, [servers.plain]: { url: plainAs.mcp, auth: 'oauth' } } },
      oauth: { inboxPublicUrl: proxy.url },
    });
    running = worker.run();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--ignore-certificate-errors'] });
  });
  after(async () => {
    await browser?.close();
    worker?.shutdown();
    await running;
    await inbox?.close();
    await proxy?.close();
    await cimdAs?.close();
    await plainAs?.close();
    await env?.teardown();
  });

  const pendingSignIn = (name: string): Promise<Request> =>
    eventually(async () => (await env.client.workflow.getHandle(loginWorkflowId(name)).query(pendingQuery))[0], `${name}'s sign-in request`);
  const call = (name: string, text: string) =>
    env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `cimd-${name}-${Date.now()}`,
      args: [{ server: name, tool: 'echo', arguments: { text } }],
    });
  const documentUrl = () => new URL('oauth/client-metadata.json', proxy.url).href;

  it('serves the document over HTTP: its own URL as client_id, a public client whose one redirect URI is the callback the logins use', async () => {
    assert.equal(inbox.clientMetadataUrl, documentUrl());
    assert.deepEqual(inbox.warnings, []);
    // As the authorization server fetches it (no inbox token), straight from the inbox and through its https front.
    const res = await fetch(new URL('oauth/client-metadata.json', inbox.url));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(doc, {
      client_id: documentUrl(),
      client_name: 'durable-mcp',
      redirect_uris: [new URL('oauth/callback', proxy.url).href],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    // The callback a login sends the browser to is the document's redirect URI (and another server's, without CIMD, too).
    const waiting = await call(servers.plain, 'dcr');
    const url = new URL((await pendingSignIn(servers.plain)).url!);
    assert.equal(url.searchParams.get('redirect_uri'), (doc.redirect_uris as string[])[0]);
    // An authorization server without document support: the login registered dynamically (its own client id).
    assert.notEqual(url.searchParams.get('client_id'), documentUrl());
    assert.equal((await plainAs.stats()).registrations, 1);
    assert.equal(await signIn(browser, url.href), 'Signed in');
    assert.equal((await waiting.result()).output, 'echo: dcr');
  });

  it('a login at an authorization server that supports documents uses the inbox’s URL as client_id, without registering', async () => {
    const waiting = await call(servers.cimd, 'cimd');
    const request = await pendingSignIn(servers.cimd);
    const url = new URL(request.url!);
    assert.equal(url.searchParams.get('client_id'), documentUrl());
    assert.equal(url.searchParams.get('redirect_uri'), new URL('oauth/callback', proxy.url).href);
    // oidc-provider fetched the document at the client id (over https, through the proxy) to show its pages.
    assert.equal(await signIn(browser, request.url!), 'Signed in');
    assert.equal((await waiting.result()).output, 'echo: cimd');
    const stats = await cimdAs.stats();
    assert.equal(stats.registrations, 0, 'no dynamic registration');
    assert.equal(stats.codeGrants, 1);
  });

  it('an http public URL (not loopback) serves no document, and the inbox, the CLI and the worker say why at start', async () => {
    const plain = await startInbox({ client: env.client, host: '127.0.0.1', port: 0, publicUrl: 'http://inbox.internal:8787/' });
    try {
      assert.equal(plain.clientMetadataUrl, undefined);
      assert.equal(plain.warnings.length, 1);
      assert.match(plain.warnings[0]!, /public URL http:\/\/inbox\.internal:8787\/ is not https, so it serves no Client ID Metadata Document/);
      const res = await fetch(new URL('oauth/client-metadata.json', plain.url));
      assert.equal(res.status, 404);
      assert.match(await res.text(), /serves no Client ID Metadata Document: its public URL .* is not https/);
    } finally {
      await plain.close();
    }
    const cli = spawnNode([cliMain, 'inbox', '--port', '0', '--public-url', 'http://inbox.internal/'], { TEMPORAL_ADDRESS: env.address });
    try {
      await cli.waitFor(/durable-mcp inbox: warning: the inbox's public URL http:\/\/inbox\.internal\/ is not https, so it serves no Client ID Metadata/);
    } finally {
      await cli.kill();
    }
    const bad = await run(['inbox', '--port', '0', '--public-url', 'ftp://inbox.internal/'], { TEMPORAL_ADDRESS: env.address });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--public-url must be an https \(or http\) URL, got "ftp:\/\/inbox\.internal\/"/);
    const w = await createWorker({
      connection: env.nativeConnection,
      taskQueue: uniqueTaskQueue('oauth-cimd-http'),
      encryption: codec,
      mcpConfig: { mcpServers: { s: { url: cimdAs.mcp, auth: 'oauth' } } },
      oauth: { inboxPublicUrl: 'http://inbox.internal/' },
    });
    await w.runUntil(Promise.resolve());
    assert.ok(
      w.warnings.some((m) => /public URL http:\/\/inbox\.internal\/ is not https/.test(m)),
      w.warnings.join('\n'),
    );
  });
});
