/**
 * Two guards of a sign-in, end to end with oidc-provider and Chromium (docs/oauth.md): the authorization response's
 * `iss` (RFC 9207: one that is not the issuer's fails the login, once, and the code never reaches the token endpoint),
 * and step-up (a 403 `insufficient_scope` asks the person once more, for the wider scope; a server that keeps refusing
 * the scopes it was given fails the call instead of asking again). The fixture's MCP server decides the scopes
 * (test/fixtures/oauth-server.ts: `write` needs tools.write, `stubborn` refuses every token).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loginStatusQuery, pendingQuery } from '../../src/workflows/index.js';
import { eventually } from '../helpers/temporal.js';
import { failureOf, oauthServers, oauthSuite } from '../helpers/oauth.js';

describe('the iss of an authorization response, and step-up on insufficient_scope', () => {
  const servers = { mixup: `mixup${process.pid}`, stepUp: `stepup${process.pid}`, stubborn: `stubborn${process.pid}` };
  const suite = oauthSuite({
    name: 'oauth-scopes-iss',
    mcpConfig: ({ fixture }) => oauthServers(fixture.mcp, Object.values(servers)),
  });

  it('fails the login with AuthorizationFailed when the response’s iss is not the issuer, once, and sends no code', async () => {
    const call = await suite.call(servers.mixup, 'echo', { text: 'never' });
    const request = await suite.pendingSignIn(servers.mixup);
    const before = await suite.fixture.stats();
    // The next authorization response oidc-provider sends carries another issuer's iss (a mix-up).
    await suite.fixture.control('/__wrong-iss');
    assert.equal(await suite.signIn(request.url!), 'Sign-in failed');
    const failure = await failureOf(call.result());
    assert.equal(failure.type, 'AuthorizationFailed');
    assert.match(failure.message, /issuer does not match/);
    const after = await suite.fixture.stats();
    assert.equal(after.authorizationResponses - before.authorizationResponses, 1, 'one authorization response');
    assert.equal(after.tokenCalls, before.tokenCalls, 'nothing was sent to the token endpoint');
    // No loop: the login asked nothing more, and holds no token.
    const status = await suite.login(servers.mixup).query(loginStatusQuery);
    assert.equal(status.state, 'signed-out');
    assert.equal(status.requestId, undefined);
    assert.equal(status.generation, 0);
    assert.deepEqual(await suite.login(servers.mixup).query(pendingQuery), []);
  });

  it('asks the person once more for the wider scope on 403 insufficient_scope, then the call finishes', async () => {
    const first = await suite.call(servers.stepUp, 'echo', { text: 'first' });
    const signIn = await suite.pendingSignIn(servers.stepUp);
    assert.doesNotMatch(signIn.prompt, /tools\.write/);
    assert.equal(await suite.signIn(signIn.url!), 'Signed in');
    assert.equal((await first.result()).output, 'echo: first');
    const granted = (await suite.login(servers.stepUp).query(loginStatusQuery)).scopes ?? '';
    assert.doesNotMatch(granted, /tools\.write/);

    const before = await suite.fixture.stats();
    const write = await suite.call(servers.stepUp, 'write', { text: 'hello' });
    const stepUp = await suite.pendingSignIn(servers.stepUp, { notId: signIn.id });
    assert.equal(stepUp.id, 'login-2');
    // The prompt and the authorization request name the wider scope, what was granted included.
    assert.match(stepUp.prompt, /\(scopes: [^)]*\btools\.write\b/);
    assert.match(stepUp.prompt, /\(scopes: [^)]*\btools\b(?!\.)/);
    const asked = new URL(stepUp.url!).searchParams.get('scope')!.split(' ');
    assert.ok(asked.includes('tools') && asked.includes('tools.write'), asked.join(' '));
    assert.equal(await suite.signIn(stepUp.url!), 'Signed in');
    assert.equal((await write.result()).output, 'wrote: hello');
    const after = await suite.fixture.stats();
    assert.equal(after.codeGrants - before.codeGrants, 1, 'the person was asked once more');
    assert.match((await suite.login(servers.stepUp).query(loginStatusQuery)).scopes ?? '', /\btools\.write\b/);
    assert.deepEqual(await suite.login(servers.stepUp).query(pendingQuery), []);
    // The wider token serves the other tools too, with nobody asked.
    assert.equal((await (await suite.call(servers.stepUp, 'echo', { text: 'after' })).result()).output, 'echo: after');
    assert.equal((await suite.fixture.stats()).codeGrants, after.codeGrants);
  });

  it('fails with AuthorizationFailed when the server keeps answering insufficient_scope for scopes it was given', async () => {
    const before = await suite.fixture.stats();
    const call = await suite.call(servers.stubborn, 'stubborn');
    const first = await suite.pendingSignIn(servers.stubborn);
    assert.equal(await suite.signIn(first.url!), 'Signed in');
    // The server asks for tools.write: one step-up.
    const stepUp = await suite.pendingSignIn(servers.stubborn, { notId: first.id });
    assert.match(stepUp.prompt, /\btools\.write\b/);
    assert.equal(await suite.signIn(stepUp.url!), 'Signed in');
    // It refuses the wider token too: the call fails, and nobody is asked a third time.
    const failure = await failureOf(call.result());
    assert.equal(failure.type, 'AuthorizationFailed');
    assert.match(failure.message, /answered 403 insufficient_scope for scopes "tools tools\.write", which its token was granted/);
    const after = await suite.fixture.stats();
    assert.equal(after.codeGrants - before.codeGrants, 2, 'two sign-ins: the first and the one step-up');
    const status = await eventually(async () => suite.login(servers.stubborn).query(loginStatusQuery), 'the login status');
    assert.equal(status.requestId, undefined, 'no third sign-in request');
    assert.deepEqual(await suite.login(servers.stubborn).query(pendingQuery), []);
  });
});
