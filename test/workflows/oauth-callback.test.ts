/**
 * The inbox's /oauth/callback at its edge (docs/oauth.md "The callback", docs/security.md "The OAuth callback"), with
 * real parts: oidc-provider in front of an MCP server, a real dev server whose own metrics count the update calls, a
 * worker that signs the sign-ins' states, and the inbox. A forged, expired or replayed state, and a flood, are refused
 * before Temporal: the dev server counts no update. The page shows fixed sentences and codes, never the server's text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { StateMac } from '../../src/codec/state-mac.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import { OAUTH_CALLBACK_UPDATE } from '../../src/contract/message-names.js';
import { startInbox } from '../../src/inbox/index.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { pendingQuery } from '../../src/workflows/messages.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../../src/mcp/index.js';
import { failureOf, oauthServers, oauthSuite } from '../helpers/oauth.js';
import { settledUpdates } from '../helpers/server-metrics.js';
import { eventually } from '../helpers/temporal.js';
import { ignoreTheNextUpdate } from '../helpers/unprocessed.js';

describe('the OAuth callback at the edge (signed states, a rate limit, fixed pages)', () => {
  const servers = { denied: `denied${process.pid}`, other: `other${process.pid}`, unprocessed: `unprocessed${process.pid}` };
  const suite = oauthSuite({
    name: 'oauth-callback',
    browser: false,
    plainWorker: true,
    mcpConfig: ({ fixture }) => oauthServers(fixture.mcp, Object.values(servers)),
  });
  const call = (name: string, text: string) => suite.call(name, 'echo', { text }, { workflowId: `oauth-cb-${name}-${text}-${Date.now()}` });
  /** The callback URL of the inbox with these parameters. */
  const callback = (params: Record<string, string>) => {
    const u = new URL(suite.redirectUrl);
    u.search = new URLSearchParams(params).toString();
    return u;
  };

  it('shows a fixed sentence and a code from a fixed list for the server’s error, then refuses forged, expired and replayed states with zero updates', async () => {
    const waiting = await call(servers.denied, 'denied');
    const request = await suite.pendingSignIn(servers.denied);
    const state = new URL(request.url!).searchParams.get('state')!;
    const denied = callback({ state, error: 'access_denied', error_description: '<b>Call +1-555-0100 now</b>', error_uri: 'https://evil.example/' });
    const res = await fetch(denied);
    const body = await res.text();
    assert.equal(res.status, 400, body);
    assert.match(body, /<h1>Sign-in refused<\/h1>/);
    assert.match(body, /Code: <code>access_denied<\/code>/);
    assert.doesNotMatch(body, /555-0100|evil\.example/);
    assert.equal((await failureOf(waiting.result())).type, 'AuthorizationRequired');

    // The worker's own key signs, but 8 days ago (past the 7-day TTL); another key signs now.
    const seal = new CredentialSeal(new EncryptionCodec(parseEncryptionKeys(suite.keyText, 'test')).deriveKeys(SEAL_KEY_LABEL));
    const suiteMac = seal.stateMac({});
    const otherMac = new StateMac(parseEncryptionKeys(generateEncryptionKey('other'), 'test'));
    const other = await call(servers.other, 'pending');
    await suite.pendingSignIn(servers.other);
    const loginId = loginWorkflowId(servers.other);
    const head = Buffer.from(loginId).toString('base64url');
    const before = await settledUpdates(suite.metricsPort, suite.env.client);
    const refusals: Array<[string, URL, RegExp]> = [
      ['replayed', denied, /unknown or was already used\. Nothing was changed\./],
      ['replayed with a code', callback({ state, code: 'a-code' }), /unknown or was already used/],
      ['a random tail', callback({ state: `${head}.${'A'.repeat(70)}`, code: 'c' }), /unknown or was already used/],
      ['the unsigned form', callback({ state: `${head}.${'B'.repeat(43)}`, code: 'c' }), /unknown or was already used/],
      ['signed by another key', callback({ state: otherMac.issue(loginId), code: 'c' }), /unknown or was already used/],
      ['expired', callback({ state: suiteMac.issue(loginId, Date.now() - 8 * 24 * 3600_000), code: 'c' }), /has expired\. Nothing was changed/],
    ];
    for (const [what, url, text] of refusals) {
      const r = await fetch(url);
      const page = await r.text();
      assert.equal(r.status, 400, `${what}: ${page}`);
      assert.match(page, text, what);
    }
    assert.equal(
      (await settledUpdates(suite.metricsPort, suite.env.client)) - before,
      0,
      'no callback above reached a workflow (the dev server counted no update call)',
    );
    // The pending sign-in of the other login is untouched: a state the worker signed for it is still taken.
    assert.equal((await suite.pendingSignIn(servers.other)).kind, 'authorization');
    await suite.env.client.workflow.getHandle(other.workflowId).cancel();
  });

  it('rate-limits the callback per client address: a flood of forged states gets 429 and costs no update', async () => {
    const inbox = await startInbox({
      client: suite.env.client,
      host: '127.0.0.1',
      port: 0,
      sealCode: (code: string) => `not-sealed-${code.length}`,
      stateMac: new StateMac(parseEncryptionKeys(generateEncryptionKey('flood'), 'test')),
      callbackRate: { burst: 5, perSecond: 0.001 },
    });
    try {
      const head = Buffer.from(loginWorkflowId(servers.other)).toString('base64url');
      const before = await settledUpdates(suite.metricsPort, suite.env.client);
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await fetch(new URL(`oauth/callback?state=${head}.${'C'.repeat(70)}&code=c${i}`, inbox.url))).status);
      assert.deepEqual(statuses.slice(0, 5), [400, 400, 400, 400, 400], 'the first 5 are refused as unknown');
      assert.deepEqual([...new Set(statuses.slice(5))], [429], 'then every one is rate-limited');
      const limited = await fetch(new URL(`oauth/callback?state=${head}.x&code=c`, inbox.url));
      assert.equal(limited.headers.get('retry-after'), '60');
      assert.match(await limited.text(), /Too many sign-in attempts came from this address/);
      assert.equal((await settledUpdates(suite.metricsPort, suite.env.client)) - before, 0, 'the flood reached no workflow');
    } finally {
      await inbox.close();
    }
  });

  it('sends a sign-in again that a worker left unprocessed: the person sees its outcome, not "unknown or already used"', async () => {
    const { plain } = suite;
    const server = servers.unprocessed;
    const waiting = await plain.client.workflow.start(mcpToolCall, {
      taskQueue: plain.taskQueue,
      workflowId: `oauth-cb-unprocessed-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'x' } }],
    });
    const login = plain.client.workflow.getHandle(loginWorkflowId(server));
    const request = await eventually(async () => (await login.query(pendingQuery))[0], `the sign-in request of "${server}"`);
    await eventually(async () => !(await login.describe()).raw.pendingWorkflowTask, 'the login to be quiet');
    await suite.stopPlainWorker();

    const ignored = ignoreTheNextUpdate(plain.client, plain.taskQueue, login.workflowId);
    const url = new URL('oauth/callback', plain.inbox.url);
    url.search = new URLSearchParams({ state: new URL(request.url!).searchParams.get('state')!, error: 'access_denied' }).toString();
    const page = fetch(url).then(async (r) => ({ status: r.status, body: await r.text() }));
    assert.equal(await ignored, 1, 'the ignoring worker took the callback');
    await suite.startPlainWorker();

    const { status, body } = await page;
    assert.equal(status, 400, body);
    assert.match(body, /<h1>Sign-in refused<\/h1>/, 'the login got the callback: the refusal is its outcome');
    assert.match(body, /Code: <code>access_denied<\/code>/);
    assert.equal((await failureOf(waiting.result())).type, 'AuthorizationRequired');
    const history = await login.fetchHistory();
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    assert.equal(
      accepted.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest?.input?.name === OAUTH_CALLBACK_UPDATE).length,
      1,
      'applied once',
    );
  });
});
