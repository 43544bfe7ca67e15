/**
 * Servers behind OAuth in the legacy era and over the old HTTP+SSE transport (docs/oauth.md, "Both eras, both HTTP
 * transports"), end to end: oidc-provider in front of v1 SDK servers (test/fixtures/oauth-server.ts: /legacy with
 * sessions and `elicitation/create`, /sse with only the old transport), the inbox's callback, Chromium signing in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loginStatusQuery, pendingQuery, submitAnswerUpdate } from '../../src/workflows/index.js';
import { eventually } from '../helpers/temporal.js';
import { LOOPBACK_AUTH, oauthSuite } from '../helpers/oauth.js';

describe('servers behind OAuth in the legacy era and over HTTP+SSE', () => {
  const legacy = `legacy${process.pid}`;
  const sse = `sse${process.pid}`;
  const suite = oauthSuite({
    name: 'oauth-transports',
    mcpConfig: ({ fixture }) => ({
      mcpServers: { [legacy]: { url: fixture.legacy, auth: LOOPBACK_AUTH }, [sse]: { url: fixture.sse, auth: LOOPBACK_AUTH } },
    }),
  });

  it('a legacy-era server: the call waits for a sign-in, runs, elicits on the session, is answered and finishes', async () => {
    const before = await suite.fixture.stats();
    const call = await suite.call(legacy, 'ask_name');
    const signIn = await suite.pendingSignIn(legacy);
    assert.equal(signIn.kind, 'authorization');
    assert.match(signIn.prompt, new RegExp(`Sign in to MCP server "${legacy}" at ${suite.fixture.issuer.replace(/[.]/g, '\\.')}`));
    assert.equal(await suite.signIn(signIn.url!), 'Signed in');
    // With the token the call runs; the server asks on the session (elicitation/create), the call's workflow lists it.
    const question = await eventually(async () => (await call.query(pendingQuery))[0], 'the elicitation of ask_name');
    assert.equal(question.kind, 'input');
    assert.equal(question.prompt, 'What is your name?');
    await call.executeUpdate(submitAnswerUpdate, { args: [{ id: question.id, ok: true, data: { name: 'Ada' } }] });
    const result = await call.result();
    assert.equal(result.output, 'hello Ada');
    assert.equal(result.isError, false);
    const after = await suite.fixture.stats();
    assert.equal(after.codeGrants - before.codeGrants, 1, 'one sign-in');
    assert.equal((await suite.login(legacy).query(loginStatusQuery)).state, 'signed-in');
    // The next call uses the token at once.
    assert.equal((await (await suite.call(legacy, 'echo', { text: 'again' })).result()).output, 'echo: again');
    assert.deepEqual(await suite.login(legacy).query(pendingQuery), []);
  });

  it('an SSE-only server: the call waits for a sign-in, and finishes over SSE with the token', async () => {
    const before = await suite.fixture.stats();
    const call = await suite.call(sse, 'echo', { text: 'over sse' });
    const signIn = await suite.pendingSignIn(sse);
    assert.equal(await suite.signIn(signIn.url!), 'Signed in');
    assert.equal((await call.result()).output, 'echo: over sse');
    const after = await suite.fixture.stats();
    assert.equal(after.codeGrants - before.codeGrants, 1, 'one sign-in');
    // An expired token over SSE: the login refreshes it, nobody is asked.
    await suite.fixture.control('/__expire-access');
    assert.equal((await (await suite.call(sse, 'echo', { text: 'refreshed' })).result()).output, 'echo: refreshed');
    const later = await suite.fixture.stats();
    assert.equal(later.refreshOk - after.refreshOk, 1, 'one refresh');
    assert.equal(later.codeGrants, after.codeGrants, 'no new sign-in');
    assert.deepEqual(await suite.login(sse).query(pendingQuery), []);
  });

  for (const [what, name] of [
    ['a legacy-era server', legacy],
    ['an SSE-only server', sse],
  ] as const) {
    it(`steps up on ${what}'s 403 insufficient_scope: one more sign-in for the wider scope, then the call finishes`, async () => {
      // Signed in by the tests above, with the scopes the server's metadata names (no tools.write).
      const status = await suite.login(name).query(loginStatusQuery);
      assert.equal(status.state, 'signed-in');
      assert.doesNotMatch(status.scopes ?? '', /tools\.write/);
      const before = await suite.fixture.stats();
      const call = await suite.call(name, 'write', { text: 'more' });
      const stepUp = await suite.pendingSignIn(name);
      assert.match(stepUp.prompt, /\(scopes: [^)]*\btools\.write\b/);
      assert.equal(await suite.signIn(stepUp.url!), 'Signed in');
      assert.equal((await call.result()).output, 'wrote: more');
      const after = await suite.fixture.stats();
      assert.equal(after.codeGrants - before.codeGrants, 1, 'asked once more');
      assert.match((await suite.login(name).query(loginStatusQuery)).scopes ?? '', /\btools\.write\b/);
    });
  }
});
