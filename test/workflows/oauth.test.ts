/**
 * Servers behind OAuth, end to end with real parts (docs/oauth.md): oidc-provider as the authorization server in front
 * of a v2 SDK MCP server that requires bearer tokens (test/fixtures/oauth-server.ts), a real dev server and worker,
 * the inbox's /oauth/callback, and headless Chromium signing in and consenting on oidc-provider's own pages.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { loginWorkflowId } from '../../src/contract/login.js';
import type { Request } from '../../src/contract/index.js';
import { loginStatusQuery, mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import { eventually, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { oauthServers, oauthSuite, signInOnPage } from '../helpers/oauth.js';
import { updateErrors } from '../helpers/server-metrics.js';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { run } from '../helpers/cli.js';

const workerEntry = fileURLToPath(new URL('../../src/cli/worker-command.js', import.meta.url));

describe('a server behind OAuth (oidc-provider, Chromium, the inbox callback)', () => {
  const server = `crm${process.pid}`;
  // One login each: a test's sign-ins and refreshes do not disturb another's.
  const servers = {
    first: server,
    many: `many${process.pid}`,
    expiry: `expiry${process.pid}`,
    revoked: `revoked${process.pid}`,
    race: `race${process.pid}`,
    killed: `killed${process.pid}`,
    replay: `replay${process.pid}`,
    expires: `expires${process.pid}`,
    perCall: `percall${process.pid}`,
  };
  const suite = oauthSuite({
    name: 'oauth',
    mcpConfig: ({ fixture }) => oauthServers(fixture.mcp, Object.values(servers), [servers.perCall]),
  });
  const { taskQueue } = suite;
  const login = (name: string) => suite.login(name);
  const pendingSignIn = async (name = server, notId?: string): Promise<Request> => suite.pendingSignIn(name, notId ? { notId } : {});
  const call = (name: string, text: string, id = `oauth-${name}-${text}-${Date.now()}`) => suite.call(name, 'echo', { text }, { workflowId: id });
  /** A `durable-mcp worker` process on `queue` with this suite's config and key. */
  const workerProcess = async (queue: string): Promise<SpawnedProcess> => {
    const configPath = join(tempDir(), 'mcp.json');
    writeFileSync(configPath, JSON.stringify(suite.mcpConfig));
    const proc = spawnNode([workerEntry, '--mcp-config', configPath], {
      TEMPORAL_ADDRESS: suite.env.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: queue,
      DURABLE_MCP_ENCRYPTION_KEYS: suite.keyText,
      DURABLE_MCP_OAUTH_REDIRECT_URL: suite.redirectUrl,
    });
    await proc.waitFor(/durable-mcp worker: Temporal/);
    return proc;
  };
  /** A login signed in once (its first call made the request, Chromium answered it). */
  const signedIn = async (name: string): Promise<void> => {
    const first = await call(name, 'first');
    assert.equal(await suite.signIn((await pendingSignIn(name)).url!), 'Signed in');
    assert.equal((await first.result()).output, 'echo: first');
  };

  it('asks once for a sign-in (an authorization request), and the call finishes after Chromium signs in', async () => {
    const call = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-first-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'hi' } }],
    });
    const request = await pendingSignIn();
    assert.equal(request.kind, 'authorization');
    assert.match(request.prompt, new RegExp(`Sign in to MCP server "${server}" at ${suite.fixture.issuer.replace(/[.]/g, '\\.')}`));
    assert.ok(request.url?.startsWith(`${suite.fixture.issuer}/auth?`), request.url);
    assert.equal(await suite.signIn(request.url!), 'Signed in');
    const result = await call.result();
    assert.equal(result.output, 'echo: hi');
    assert.equal(result.isError, false);
    const status = await suite.env.client.workflow.getHandle(loginWorkflowId(server)).query(loginStatusQuery);
    assert.equal(status.state, 'signed-in');
    assert.equal(status.issuer, suite.fixture.issuer);
    assert.equal(status.refreshable, true);
    // The next call uses the token at once: no request, no sign-in.
    const second = await suite.env.client.workflow.execute(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-second-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'again' } }],
    });
    assert.equal(second.output, 'echo: again');
    assert.equal((await suite.fixture.stats()).codeGrants, 1);
  });

  it('makes one sign-in request for 20 calls that wait at once, and all 20 finish after it', async () => {
    const before = await suite.fixture.stats();
    const calls = await Promise.all(Array.from({ length: 20 }, (_, i) => call(servers.many, `n${i}`)));
    const request = await pendingSignIn(servers.many);
    await eventually(async () => (await login(servers.many).query(loginStatusQuery)).waiting === 20, 'all 20 calls waiting for the login');
    assert.deepEqual(
      (await login(servers.many).query(pendingQuery)).map((r) => r.id),
      [request.id],
      'one request, however many calls wait',
    );
    assert.equal(await suite.signIn(request.url!), 'Signed in');
    const outputs = await Promise.all(calls.map(async (h) => (await h.result()).output));
    assert.deepEqual(
      outputs,
      Array.from({ length: 20 }, (_, i) => `echo: n${i}`),
    );
    const after = await suite.fixture.stats();
    assert.equal(after.codeGrants - before.codeGrants, 1, 'one sign-in, one code');
    assert.equal((await login(servers.many).query(loginStatusQuery)).requestId, undefined);
  });

  it('refreshes an expired access token with no person asked', async () => {
    await signedIn(servers.expiry);
    const before = await suite.fixture.stats();
    const generation = (await login(servers.expiry).query(loginStatusQuery)).generation;
    await suite.fixture.control('/__expire-access');
    assert.equal((await (await call(servers.expiry, 'later')).result()).output, 'echo: later');
    const after = await suite.fixture.stats();
    assert.equal(after.refreshOk - before.refreshOk, 1, 'one refresh');
    assert.equal(after.codeGrants, before.codeGrants, 'no new sign-in');
    const status = await login(servers.expiry).query(loginStatusQuery);
    assert.equal(status.generation, generation + 1);
    assert.equal(status.state, 'signed-in');
    assert.deepEqual(await login(servers.expiry).query(pendingQuery), [], 'nobody was asked');
  });

  it('turns a revoked refresh token into a new sign-in request, and the call waits for it instead of failing', async () => {
    await signedIn(servers.revoked);
    const firstRequest = (await login(servers.revoked).query(loginStatusQuery)).generation;
    await suite.fixture.control('/__revoke-refresh');
    const waiting = await call(servers.revoked, 'after-revoke');
    const request = await pendingSignIn(servers.revoked);
    assert.equal(request.id, 'login-2');
    assert.match(request.prompt, /the saved sign-in was refused/);
    assert.equal(await suite.signIn(request.url!), 'Signed in');
    assert.equal((await waiting.result()).output, 'echo: after-revoke');
    assert.ok((await login(servers.revoked).query(loginStatusQuery)).generation > firstRequest);
  });

  it('uses a rotating refresh token once when 3 workers run 30 calls that find the token expired together', async () => {
    await signedIn(servers.race);
    const more = await Promise.all([workerProcess(taskQueue), workerProcess(taskQueue)]);
    try {
      // Every worker learns the token first (each has its own cache), then it expires at the authorization server.
      await Promise.all(
        Array.from({ length: 9 }, async (_, i) => assert.equal((await (await call(servers.race, `warm${i}`)).result()).output, `echo: warm${i}`)),
      );
      const before = await suite.fixture.stats();
      const errorsBefore = await updateErrors(suite.metricsPort);
      await suite.fixture.control('/__expire-access');
      const calls = await Promise.all(Array.from({ length: 30 }, (_, i) => call(servers.race, `r${i}`)));
      const outputs = await Promise.all(calls.map(async (h) => (await h.result()).output));
      assert.deepEqual(
        outputs,
        Array.from({ length: 30 }, (_, i) => `echo: r${i}`),
      );
      const after = await suite.fixture.stats();
      const generations = (await login(servers.race).query(loginStatusQuery)).generation;
      assert.equal(after.refreshGrants - before.refreshGrants, 1, `the refresh token was sent once (${JSON.stringify({ before, after, generations })})`);
      assert.equal(after.refreshFailed - before.refreshFailed, 0);
      assert.equal(after.codeGrants, before.codeGrants, 'no new sign-in');
      // 30 calls asked their login at once: a few at a time per worker, so Temporal never refused or aborted an update.
      assert.deepEqual(await updateErrors(suite.metricsPort), errorsBefore, 'updates refused (ResourceExhausted) or aborted (Unavailable) by the server');
    } finally {
      await Promise.all(more.map((p) => p.kill('SIGTERM')));
    }
  });

  it('survives SIGKILL of the worker while the sign-in is pending: the answer still completes the call', async () => {
    const queue = uniqueTaskQueue('oauth-kill');
    const first = await workerProcess(queue);
    const waiting = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: queue,
      workflowId: `oauth-killed-${Date.now()}`,
      args: [{ server: servers.killed, tool: 'echo', arguments: { text: 'still here' } }],
    });
    const request = await pendingSignIn(servers.killed);
    await first.kill('SIGKILL');
    const second = await workerProcess(queue);
    try {
      assert.equal(await suite.signIn(request.url!), 'Signed in');
      assert.equal((await waiting.result()).output, 'echo: still here');
      assert.deepEqual((await login(servers.killed).query(loginStatusQuery)).requestId, undefined, 'the one request was answered');
    } finally {
      await second.kill('SIGTERM');
    }
  });

  it('answers a replayed or unknown state with a clear page and no effect', async () => {
    const page = await suite.browser.newPage();
    let callbackUrl = '';
    try {
      const waiting = await call(servers.replay, 'once');
      const request = await pendingSignIn(servers.replay);
      await signInOnPage(page, request.url!, 'ada', 'pw');
      callbackUrl = page.url();
      assert.equal(await page.textContent('h1'), 'Signed in');
      assert.equal((await waiting.result()).output, 'echo: once');
    } finally {
      await page.close();
    }
    const generation = (await login(servers.replay).query(loginStatusQuery)).generation;
    // The same response again (a replay), then a state nobody issued, then a fetch that is not a navigation.
    // Refused at the inbox, before Temporal (test/workflows/oauth-callback.test.ts counts the updates): 400.
    const replayed = await fetch(callbackUrl);
    assert.equal(replayed.status, 400);
    assert.match(await replayed.text(), /unknown or was already used\. Nothing was changed\./);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', `${forged.searchParams.get('state')!.split('.')[0]}.${'A'.repeat(43)}`);
    const forgedRes = await fetch(forged);
    assert.equal(forgedRes.status, 400, await forgedRes.text());
    assert.equal((await fetch(new URL('oauth/callback?state=nonsense&code=x', suite.inbox.url))).status, 400);
    assert.equal((await fetch(callbackUrl, { headers: { 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' } })).status, 400);
    assert.equal((await fetch(callbackUrl, { method: 'POST' })).status, 405);
    assert.equal((await login(servers.replay).query(loginStatusQuery)).generation, generation, 'nothing changed');
  });

  it('fails the waiting calls with AuthorizationRequired when the sign-in request expires', async () => {
    const waiting = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-expires-${Date.now()}`,
      args: [{ server: servers.expires, tool: 'echo', arguments: { text: 'never' }, elicitation: { expiresIn: '2s' } }],
    });
    // The failure names the expired sign-in: no look at the pending request, which a busy machine could miss in 2 s.
    await assert.rejects(waiting.result(), (err: unknown) => {
      assert.ok(err instanceof WorkflowFailedError);
      const cause = err.cause as { type?: string; message?: string };
      assert.equal(cause.type, 'AuthorizationRequired');
      assert.match(cause.message ?? '', /the sign-in at .* was expired/);
      return true;
    });
    assert.equal((await login(servers.expires).query(loginStatusQuery)).state, 'signed-out');
  });

  it('lists the logins (auth list) without a token and signs one out (auth logout)', async () => {
    const cliEnv = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_ENCRYPTION_KEYS: suite.keyText };
    const listed = await run(['auth', 'list', '--json'], cliEnv);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = JSON.parse(listed.stdout) as Array<{ server: string; state: string; issuer?: string }>;
    const first = rows.find((r) => r.server === servers.first);
    assert.equal(first?.state, 'signed-in');
    assert.equal(first?.issuer, suite.fixture.issuer);
    const out = await run(['auth', 'logout', servers.first, '--json'], cliEnv);
    assert.equal(out.code, 0, out.stderr);
    assert.equal((JSON.parse(out.stdout) as { state: string }).state, 'signed-out');
    assert.equal((await login(servers.first).query(loginStatusQuery)).state, 'signed-out');
    const none = await run(['auth', 'logout', 'no-such-server'], cliEnv);
    assert.equal(none.code, 5);
  });

  it('keeps one login per principal for a per-call server: each call uses its own person’s token', async () => {
    const whoami = (principal: string) =>
      suite.env.client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: `oauth-whoami-${principal}-${Date.now()}`,
        args: [{ server: servers.perCall, tool: 'whoami', auth: { principal } }],
      });
    const [ada, bob] = [await whoami('ada'), await whoami('bob')];
    for (const [principal, handle] of [
      ['ada', ada],
      ['bob', bob],
    ] as const) {
      const request = await eventually(
        async () => (await suite.env.client.workflow.getHandle(loginWorkflowId(servers.perCall, principal)).query(pendingQuery))[0],
        `${principal}'s sign-in request`,
      );
      assert.match(request.prompt, new RegExp(`as "${principal}"`));
      assert.equal(await suite.signIn(request.url!, principal), 'Signed in');
      assert.equal((await handle.result()).output, principal, `${principal}'s call runs with ${principal}'s token`);
    }
    const noPrincipal = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-whoami-nobody-${Date.now()}`,
      args: [{ server: servers.perCall, tool: 'whoami' }],
    });
    await assert.rejects(noPrincipal.result(), (err: unknown) => {
      const messages: string[] = [];
      for (let e = err as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) messages.push(e.message ?? '');
      return messages.some((m) => m.includes('must name its principal (auth.principal)'));
    });
  });
});
