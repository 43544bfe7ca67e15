/**
 * The guards of the inbox's people features (docs/people.md), without Temporal: the ID token's algorithm must be an
 * asymmetric one the issuer lists and its `azp` this client's when it has several audiences; an email the issuer has not
 * verified is not kept; the session key is at least 32 characters; a proxy's header on a non-loopback address needs the
 * token; the history shows a signed-in person only what was addressed to them or to anyone, and a refused form is kept on
 * the page only when its request is one the person may answer. The issuer is a small fake
 * (discovery, JWKS, token endpoint) whose ID tokens each test signs as it likes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import type { ResolvedRow } from '../../src/client/resolved.js';
import { historyFor } from '../../src/inbox/history.js';
import { listInbox } from '../../src/inbox/list.js';
import { startInbox } from '../../src/inbox/index.js';
import { oidcSignIn } from '../../src/inbox/sign-in.js';

type Keys = Awaited<ReturnType<typeof generateKeyPair>>;

describe('the guards of sign-in, the proxy header and the history', () => {
  let http: Server;
  let issuer: string;
  let rsa: Keys;
  let ec: Keys;
  /** What the token endpoint answers next: an ID token the test signs. */
  let nextIdToken: () => Promise<string>;
  after(() => new Promise<void>((resolve) => http?.close(() => resolve())));
  before(async () => {
    rsa = await generateKeyPair('RS256', { extractable: true });
    ec = await generateKeyPair('ES256', { extractable: true });
    http = createServer((req, res) => {
      const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (req.url === '/.well-known/openid-configuration')
        return json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ['RS256'],
        });
      // Both keys are published (neither names its algorithm): only the issuer's list says which algorithms count.
      if (req.url === '/jwks')
        return void Promise.all([exportJWK(rsa.publicKey), exportJWK(ec.publicKey)]).then(([a, b]) =>
          json({
            keys: [
              { ...a, kid: 'r' },
              { ...b, kid: 'e' },
            ],
          }),
        );
      if (req.url === '/token' && req.method === 'POST') return void nextIdToken().then((id_token) => json({ id_token, token_type: 'Bearer' }));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });

  /** Sign in to a fresh inbox app, the issuer answering with an ID token of `claims` signed by `alg`: the callback's status and who the session says. */
  async function signInWith(alg: 'RS256' | 'ES256', claims: (nonce: string) => JWTPayload) {
    const signIn = oidcSignIn({ issuer, clientId: 'inbox', clientSecret: 'secret' }, undefined);
    const app = new Hono();
    signIn.install(app);
    app.get('/me', (c) => c.json(signIn.personOf(c) ?? null));
    const login = await app.request('http://127.0.0.1/auth/login');
    const to = new URL(login.headers.get('location')!);
    const flow = login.headers.get('set-cookie')!.split(';')[0]!;
    nextIdToken = () =>
      new SignJWT({ nonce: to.searchParams.get('nonce')!, ...claims(to.searchParams.get('nonce')!) })
        .setProtectedHeader({ alg, kid: alg === 'RS256' ? 'r' : 'e' })
        .setIssuer(issuer)
        .setSubject('ana-sub')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(alg === 'RS256' ? rsa.privateKey : ec.privateKey);
    const back = await app.request(`http://127.0.0.1/auth/callback?code=c&state=${to.searchParams.get('state')}`, { headers: { cookie: flow } });
    const session = back.headers
      .getSetCookie()
      .map((h) => h.split(';')[0]!)
      .find((h) => h.startsWith('durable_mcp_inbox_person='));
    const me = session ? await (await app.request('http://127.0.0.1/me', { headers: { cookie: session } })).json() : null;
    return { status: back.status, text: back.status === 303 ? '' : await back.text(), me: me as { subject: string; email?: string } | null };
  }

  it('takes an ID token signed with an algorithm the issuer lists, and refuses one signed with another (even by a key of its JWKS)', async () => {
    const ok = await signInWith('RS256', () => ({ aud: 'inbox', email: 'ana@example.com', email_verified: true }));
    assert.equal(ok.status, 303, ok.text);
    assert.deepEqual(ok.me && { subject: ok.me.subject, email: ok.me.email }, { subject: 'ana-sub', email: 'ana@example.com' });
    const other = await signInWith('ES256', () => ({ aud: 'inbox', email: 'ana@example.com', email_verified: true }));
    assert.equal(other.status, 403);
    assert.match(other.text, /^sign-in failed: /);
    assert.equal(other.me, null);
  });

  it('with several audiences, takes the ID token only when azp is this client', async () => {
    const forOther = await signInWith('RS256', () => ({ aud: ['inbox', 'another-client'], azp: 'another-client' }));
    assert.equal(forOther.status, 403);
    assert.equal(forOther.text, 'sign-in failed: the ID token was issued to another client (azp)');
    const noAzp = await signInWith('RS256', () => ({ aud: ['inbox', 'another-client'] }));
    assert.equal(noAzp.status, 403);
    const ours = await signInWith('RS256', () => ({ aud: ['inbox', 'another-client'], azp: 'inbox' }));
    assert.equal(ours.status, 303, ours.text);
  });

  it('keeps the email only when the issuer says it is verified (email_verified: true)', async () => {
    for (const verified of [undefined, false, 'true']) {
      const r = await signInWith('RS256', () => ({ aud: 'inbox', email: 'ana@example.com', ...(verified !== undefined ? { email_verified: verified } : {}) }));
      assert.equal(r.status, 303, r.text);
      assert.deepEqual(r.me && { subject: r.me.subject, email: r.me.email }, { subject: 'ana-sub', email: undefined }, `email_verified: ${String(verified)}`);
    }
  });

  it('refuses a session key shorter than 32 characters, naming the option and the variable', () => {
    assert.throws(
      () => oidcSignIn({ issuer, clientId: 'inbox', sessionSecret: 'short' }, undefined),
      /signIn\.sessionSecret \(DURABLE_MCP_INBOX_SESSION_KEY\) must be at least 32 characters/,
    );
    assert.doesNotThrow(() => oidcSignIn({ issuer, clientId: 'inbox', sessionSecret: 'k'.repeat(32) }, undefined));
  });

  it('refuses to listen on a non-loopback address with a proxy header and no token (with sign-in on)', async () => {
    await assert.rejects(
      startInbox({ client: {} as never, host: '0.0.0.0', port: 0, userHeader: 'X-Forwarded-User', signIn: { issuer, clientId: 'inbox' } }),
      (err: Error) => {
        assert.match(err.message, /with userHeader \(DURABLE_MCP_INBOX_USER_HEADER=X-Forwarded-User\) and no token/);
        assert.match(err.message, /Set DURABLE_MCP_INBOX_TOKEN/);
        return true;
      },
    );
  });

  it('shows a signed-in person the resolved requests addressed to them or to anyone; the token all of them', () => {
    const row = (id: string, assignees?: ResolvedRow['assignees']): ResolvedRow => ({
      id,
      kind: 'input',
      server: 'fx',
      tool: 'ask_name',
      prompt: 'What is your name?',
      outcome: 'accepted' as ResolvedRow['outcome'],
      by: 'x',
      at: '2026-01-01T00:00:00Z',
      workflowId: id,
      runId: 'r',
      workflowType: 'w',
      status: 'COMPLETED',
      ...(assignees ? { assignees } : {}),
    });
    const rows = [row('for-ana', { users: ['ana@example.com'] }), row('for-finance', { roles: ['finance'] }), row('for-anyone')];
    const ids = (person: Parameters<typeof historyFor>[1]) => historyFor(rows, person).map((r) => r.id);
    assert.deepEqual(ids({ subject: 'a', email: 'ana@example.com', source: 'oidc' }), ['for-ana', 'for-anyone']);
    assert.deepEqual(ids({ subject: 'b', email: 'bob@example.com', roles: ['finance'], source: 'oidc' }), ['for-finance', 'for-anyone']);
    assert.deepEqual(ids(undefined), ['for-ana', 'for-finance', 'for-anyone']);
  });

  it("keeps a rejected form's request on the page only when the person may answer it (never one addressed to others)", async () => {
    const listed = (id: string, assignees?: { users?: string[]; roles?: string[] }) => ({
      workflowId: id,
      runId: 'r',
      workflowType: 'w',
      startTime: '2026-01-01T00:00:00Z',
      request: { id: 'q', kind: 'input', prompt: `secret prompt of ${id}` },
      context: { server: 'fx', tool: 'ask_name', ...(assignees ? { assignees } : {}) },
    });
    const page = {
      rows: [listed('for-finance', { roles: ['finance'] }), listed('for-anyone')],
      others: [],
      order: 'expiry',
      scanned: 2,
      queried: 0,
      filteredLocally: [],
    };
    const dmc = { listPending: async () => page } as never;
    const ana = { subject: 'a', email: 'ana@example.com', source: 'oidc' as const };
    const ids = async (show: 'mine' | 'answerable', kept: string) =>
      (await listInbox(dmc, { filter: {}, for: { person: ana, show } }, { kept: { workflowId: kept, requestId: 'q' } })).rows.map((r) => r.workflowId);
    assert.deepEqual(await ids('answerable', 'for-finance'), ['for-anyone'], "finance's request is not kept for Ana");
    assert.deepEqual(await ids('mine', 'for-finance'), []);
    assert.deepEqual(await ids('mine', 'for-anyone'), ['for-anyone'], 'one she may answer is kept outside "mine"');
  });
});
