/**
 * Machine-to-machine logins (`"auth": { "grant": "client_credentials", … }`; docs/oauth.md), end to end with
 * oidc-provider's client_credentials grant in front of the bearer-protected v2 server: no person is asked, with a
 * client secret (client_secret_basic) or a private key (private_key_jwt, the SDK's signed assertion); an expired token
 * is replaced by a new grant; a refused client, or an authorization server that is not the configured issuer, fails
 * the call with AuthorizationFailed.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { loginStatusQuery, pendingQuery } from '../../src/workflows/index.js';
import { run } from '../helpers/cli.js';
import { failureOf, LOOPBACK_AUTH, oauthSuite } from '../helpers/oauth.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const secret = `machine-${Math.random().toString(36).slice(2)}`;
process.env.MACHINE_CLIENT_SECRET = secret;
process.env.MACHINE_PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

describe('machine-to-machine logins (client credentials)', () => {
  const servers = { basic: `ccbasic${process.pid}`, jwt: `ccjwt${process.pid}`, refused: `ccrefused${process.pid}`, pinned: `ccpinned${process.pid}` };
  const suite = oauthSuite({
    name: 'oauth-machine',
    browser: false,
    fixtureEnv: () => ({
      FIXTURE_MACHINE_CLIENTS: JSON.stringify([
        { client_id: 'machine-basic', client_secret: secret, token_endpoint_auth_method: 'client_secret_basic' },
        {
          client_id: 'machine-jwt',
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'ES256',
          jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'machine-jwt-1' }] },
        },
      ]),
    }),
    mcpConfig: ({ fixture }) => {
      const basic = { ...LOOPBACK_AUTH, grant: 'client_credentials', clientId: 'machine-basic', clientSecret: '${MACHINE_CLIENT_SECRET}' };
      return {
        mcpServers: {
          [servers.basic]: { url: fixture.mcp, auth: basic },
          [servers.jwt]: {
            url: fixture.mcp,
            auth: {
              ...LOOPBACK_AUTH,
              grant: 'client_credentials',
              clientId: 'machine-jwt',
              privateKey: '${MACHINE_PRIVATE_KEY}',
              algorithm: 'ES256',
              issuer: fixture.issuer,
            },
          },
          [servers.refused]: { url: fixture.mcp, auth: { ...basic, clientSecret: 'not-the-secret' } },
          [servers.pinned]: { url: fixture.mcp, auth: { ...basic, issuer: 'https://auth.elsewhere.example' } },
        },
      };
    },
  });

  for (const [how, name] of [
    ['a client secret (client_secret_basic)', () => servers.basic],
    ['a private key (private_key_jwt)', () => servers.jwt],
  ] as const) {
    it(`gets a token with ${how}, no person asked, and a new grant when it expires`, async () => {
      const before = await suite.fixture.stats();
      assert.equal((await (await suite.call(name(), 'echo', { text: 'machine' })).result()).output, 'echo: machine');
      const after = await suite.fixture.stats();
      assert.equal(after.clientCredentialsGrants - before.clientCredentialsGrants, 1, 'one client-credentials grant');
      assert.equal(after.codeGrants, before.codeGrants, 'nobody signed in');
      const status = await suite.login(name()).query(loginStatusQuery);
      assert.equal(status.state, 'signed-in');
      assert.equal(status.issuer, suite.fixture.issuer);
      assert.equal(status.requestId, undefined);
      assert.deepEqual(await suite.login(name()).query(pendingQuery), [], 'no sign-in request');

      await suite.fixture.control('/__expire-access');
      assert.equal((await (await suite.call(name(), 'echo', { text: 'again' })).result()).output, 'echo: again');
      const later = await suite.fixture.stats();
      assert.equal(later.clientCredentialsGrants - after.clientCredentialsGrants, 1, 'a new grant for the expired token');
      assert.equal(later.refreshGrants, after.refreshGrants, 'no refresh token');
      assert.equal((await suite.login(name()).query(loginStatusQuery)).generation, status.generation + 1);
      assert.deepEqual(await suite.login(name()).query(pendingQuery), []);
    });
  }

  it('signs out (auth logout) and gets a new token for the next call, with nobody asked', async () => {
    const cliEnv = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_ENCRYPTION_KEYS: suite.keyText };
    const out = await run(['auth', 'logout', servers.basic, '--json'], cliEnv);
    assert.equal(out.code, 0, out.stderr);
    assert.equal((JSON.parse(out.stdout) as { state: string }).state, 'signed-out');
    // The worker may still hold the old token in memory (docs/oauth.md): it goes on using it until the server refuses it.
    await suite.fixture.control('/__revoke-refresh');
    const before = await suite.fixture.stats();
    assert.equal((await (await suite.call(servers.basic, 'echo', { text: 'back' })).result()).output, 'echo: back');
    assert.equal((await suite.fixture.stats()).clientCredentialsGrants - before.clientCredentialsGrants, 1, 'a new grant');
    assert.equal((await suite.login(servers.basic).query(loginStatusQuery)).state, 'signed-in');
    assert.deepEqual(await suite.login(servers.basic).query(pendingQuery), []);
  });

  it('fails with AuthorizationFailed when the authorization server refuses the client, and asks nobody', async () => {
    const failure = await failureOf((await suite.call(servers.refused, 'echo', { text: 'never' })).result());
    assert.equal(failure.type, 'AuthorizationFailed');
    assert.match(failure.message, /invalid_client/);
    assert.doesNotMatch(failure.message, /not-the-secret/);
    assert.deepEqual(await suite.login(servers.refused).query(pendingQuery), []);
  });

  it('sends the credentials to no authorization server but the configured issuer', async () => {
    const before = await suite.fixture.stats();
    const failure = await failureOf((await suite.call(servers.pinned, 'echo', { text: 'never' })).result());
    assert.equal(failure.type, 'AuthorizationFailed');
    assert.equal((await suite.fixture.stats()).tokenCalls, before.tokenCalls, 'nothing was sent to the token endpoint');
    assert.deepEqual(await suite.login(servers.pinned).query(pendingQuery), []);
  });
});
