/**
 * A server or an authorization server cannot make the worker fetch what it names, nor get the configured client's
 * secret (issue 31; docs/security.md "The worker: URLs it fetches (OAuth discovery)" and "client secrets and their
 * issuer"). Real parts: a real worker and dev server, oidc-provider as the configured issuer (holding the client's
 * secret), a real MCP HTTP server whose 401s name what a hostile server would, and recording peers
 * (test/fixtures/rogue-oauth.ts): an internal listener on 127.0.0.2 and an attacker's authorization server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { pendingQuery } from '../../src/workflows/index.js';
import { startRoguePeers, type RoguePeers } from '../fixtures/rogue-oauth.js';
import { failureOf, LOOPBACK_AUTH, oauthSuite } from '../helpers/oauth.js';

describe('no request forgery through OAuth discovery, and no client secret for another issuer', () => {
  let peers: RoguePeers;
  const secret = `forgery-secret-${Math.random().toString(36).slice(2)}`;
  const servers = { cross: `cross${process.pid}`, internal: `internal${process.pid}`, attacker: `attacker${process.pid}` };
  // The peers listen before the suite's worker starts (its config names them).
  before(async () => {
    peers = await startRoguePeers();
    process.env.FORGERY_CLIENT_SECRET = secret;
  });
  after(async () => {
    await peers?.close();
  });
  const suite = oauthSuite({
    name: 'oauth-forgery',
    browser: false,
    fixtureEnv: (redirectUrl) => ({ FIXTURE_CLIENT_ID: 'durable-mcp-test', FIXTURE_CLIENT_SECRET: secret, FIXTURE_REDIRECT_URI: redirectUrl }),
    mcpConfig: ({ fixture }) => ({
      mcpServers: {
        // Loopback allowed (the MCP server is on loopback), but its challenge names metadata on another origin.
        [servers.cross]: { url: peers.mcp.cross, auth: LOOPBACK_AUTH },
        // That origin allowed by the config, but not its address: no allowPrivateNetwork.
        [servers.internal]: { url: peers.mcp.internal, auth: { resourceMetadataOrigin: peers.internalOrigin } },
        // The configured issuer is oidc-provider, which holds the client's secret; the server names the attacker's.
        [servers.attacker]: {
          url: peers.mcp.attacker,
          auth: { ...LOOPBACK_AUTH, clientId: 'durable-mcp-test', clientSecret: '${FORGERY_CLIENT_SECRET}', issuer: fixture.issuer },
        },
      },
    }),
  });

  /**
   * The call's failure; if instead a sign-in is asked for (the flow went on), the person follows its URL as a browser
   * would, so that whatever the flow would send next is sent, and the test's assertions see it. Undefined: the call had
   * not failed 20 s after that.
   */
  async function outcome(server: string): Promise<{ type: string; message: string; failure?: Error } | undefined> {
    const handle = await suite.call(server, 'echo', { text: 'x' });
    let settled = false;
    const failed = failureOf(handle.result()).finally(() => (settled = true));
    while (!settled) {
      const asked = await suite
        .login(server)
        .query(pendingQuery)
        .catch(() => []);
      if (asked[0]?.url) {
        await fetch(asked[0].url).catch(() => undefined);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return Promise.race([failed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000).unref())]);
  }

  for (const which of ['cross', 'internal'] as const) {
    it(`a 401 naming metadata at an internal address (${which === 'cross' ? 'another origin' : 'an allowed origin, a loopback address'}): zero requests there, a typed non-retryable failure`, async () => {
      const failure = await outcome(servers[which]);
      assert.deepEqual(
        peers.internal.map((r) => `${r.method} ${r.url}`),
        [],
        'the internal listener got no request',
      );
      assert.ok(failure, 'the call failed');
      assert.equal(failure.type, 'AuthorizationFailed', failure.message);
      assert.equal((failure.failure as ApplicationFailure | undefined)?.nonRetryable, true, 'non-retryable');
      assert.match(failure.message, which === 'cross' ? /not the server's origin/ : /127\.0\.0\.2.*loopback address/);
    });
  }

  it("an attacker's authorization server named by the server gets no client secret; the call fails naming both issuers", async () => {
    const failure = await outcome(servers.attacker);
    const encoded = encodeURIComponent(secret);
    const basic = Buffer.from(`durable-mcp-test:${secret}`).toString('base64');
    for (const r of peers.attacker) {
      assert.equal(r.headers.authorization, undefined, `${r.method} ${r.url} carried an Authorization header`);
      assert.ok(!r.body.includes(secret) && !r.body.includes(encoded) && !r.body.includes(basic), `${r.method} ${r.url} carried the secret`);
      assert.ok(!r.url.includes(encoded), `${r.url} carried the secret`);
      assert.equal(r.method, 'GET', `${r.method} ${r.url}: only its metadata was read`);
    }
    assert.ok(failure, 'the call failed');
    assert.equal(failure.type, 'AuthorizationFailed', failure.message);
    assert.ok(failure.message.includes(peers.attackerIssuer), `names the attacker's issuer: ${failure.message}`);
    assert.ok(failure.message.includes(suite.fixture.issuer), `names the configured issuer: ${failure.message}`);
    assert.ok(!failure.message.includes(secret));
  });
});
