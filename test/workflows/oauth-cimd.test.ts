/**
 * The inbox's Client ID Metadata Document (docs/oauth.md, "Client identity"): an inbox with an https public base URL
 * serves the document whose URL is durable-mcp's client id, and the worker's logins use it where the authorization
 * server supports such documents. End to end with real parts: the inbox behind a TLS-terminating proxy (a self-signed
 * certificate of the system's openssl), oidc-provider's own implementation of the draft (it fetches the document at
 * the client id over https and checks it) in front of a v2 SDK MCP server, a dev server, a worker, Chromium.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startInbox } from '../../src/inbox/index.js';
import { createWorker } from '../../src/worker.js';
import { spawnNode } from '../../scripts/processes.js';
import { run } from '../helpers/cli.js';
import { LOOPBACK_AUTH, oauthSuite } from '../helpers/oauth.js';
import { uniqueTaskQueue } from '../helpers/temporal.js';

const cliMain = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

describe('the inbox serves a Client ID Metadata Document at an https public URL, and logins use it as client id (oidc-provider, Chromium)', () => {
  const servers = { cimd: `cimd${process.pid}`, plain: `dcr${process.pid}` };
  const suite = oauthSuite({
    name: 'oauth-cimd',
    // The inbox behind a TLS-terminating proxy; its https URL is the inbox's public URL (and the worker's logins' callback).
    httpsInbox: true,
    // The suite's authorization server supports documents (and trusts the proxy's certificate, as it would a public one);
    // the other one does not.
    fixtureEnv: () => ({ FIXTURE_CIMD: '1' }),
    fixtures: { plain: {} },
    mcpConfig: ({ fixture, fixtures }) => ({
      mcpServers: { [servers.cimd]: { url: fixture.mcp, auth: LOOPBACK_AUTH }, [servers.plain]: { url: fixtures.plain!.mcp, auth: LOOPBACK_AUTH } },
    }),
  });
  const cimdAs = () => suite.fixture;
  const plainAs = () => suite.fixtures.plain!;
  const call = (name: string, text: string) => suite.call(name, 'echo', { text }, { workflowId: `cimd-${name}-${Date.now()}` });
  const documentUrl = () => new URL('oauth/client-metadata.json', suite.publicUrl).href;

  it('serves the document over HTTP: its own URL as client_id, a public client whose one redirect URI is the callback the logins use', async () => {
    assert.match(suite.publicUrl, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal(suite.inbox.clientMetadataUrl, documentUrl());
    assert.deepEqual(suite.inbox.warnings, []);
    // As the authorization server fetches it (no inbox token), straight from the inbox and through its https front.
    const res = await fetch(new URL('oauth/client-metadata.json', suite.inbox.url));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(doc, {
      client_id: documentUrl(),
      client_name: 'durable-mcp',
      redirect_uris: [suite.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    // The callback a login sends the browser to is the document's redirect URI (and another server's, without CIMD, too).
    const waiting = await call(servers.plain, 'dcr');
    const url = new URL((await suite.pendingSignIn(servers.plain)).url!);
    assert.equal(url.searchParams.get('redirect_uri'), (doc.redirect_uris as string[])[0]);
    // An authorization server without document support: the login registered dynamically (its own client id).
    assert.notEqual(url.searchParams.get('client_id'), documentUrl());
    assert.equal((await plainAs().stats()).registrations, 1);
    assert.equal(await suite.signIn(url.href), 'Signed in');
    assert.equal((await waiting.result()).output, 'echo: dcr');
  });

  it('a login at an authorization server that supports documents uses the inbox’s URL as client_id, without registering', async () => {
    const waiting = await call(servers.cimd, 'cimd');
    const request = await suite.pendingSignIn(servers.cimd);
    const url = new URL(request.url!);
    assert.equal(url.searchParams.get('client_id'), documentUrl());
    assert.equal(url.searchParams.get('redirect_uri'), suite.redirectUrl);
    // oidc-provider fetched the document at the client id (over https, through the proxy) to show its pages.
    assert.equal(await suite.signIn(request.url!), 'Signed in');
    assert.equal((await waiting.result()).output, 'echo: cimd');
    const stats = await cimdAs().stats();
    assert.equal(stats.registrations, 0, 'no dynamic registration');
    assert.equal(stats.codeGrants, 1);
  });

  it('an http public URL (not loopback) serves no document, and the inbox, the CLI and the worker say why at start', async () => {
    const plain = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, publicUrl: 'http://inbox.internal:8787/' });
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
    const cli = spawnNode([cliMain, 'inbox', '--port', '0', '--public-url', 'http://inbox.internal/'], { TEMPORAL_ADDRESS: suite.env.address });
    try {
      await cli.waitFor(/durable-mcp inbox: warning: the inbox's public URL http:\/\/inbox\.internal\/ is not https, so it serves no Client ID Metadata/);
    } finally {
      await cli.kill();
    }
    const bad = await run(['inbox', '--port', '0', '--public-url', 'ftp://inbox.internal/'], { TEMPORAL_ADDRESS: suite.env.address });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--public-url must be an https \(or http\) URL, got "ftp:\/\/inbox\.internal\/"/);
    const w = await createWorker({
      connection: suite.env.nativeConnection,
      taskQueue: uniqueTaskQueue('oauth-cimd-http'),
      encryption: suite.codec,
      mcpConfig: { mcpServers: { s: { url: cimdAs().mcp, auth: LOOPBACK_AUTH } } },
      oauth: { inboxPublicUrl: 'http://inbox.internal/' },
    });
    await w.runUntil(Promise.resolve());
    assert.ok(
      w.warnings.some((m) => /public URL http:\/\/inbox\.internal\/ is not https/.test(m)),
      w.warnings.join('\n'),
    );
  });
});
