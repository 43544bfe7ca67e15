/**
 * Listing the tools of a server behind OAuth (docs/oauth.md, "Listing tools"): `mcpListTools` waits for the server's
 * login as a tool call does. End to end with real parts: oidc-provider in front of a v2 SDK MCP server requiring bearer
 * tokens (test/fixtures/oauth-server.ts), a dev server, a worker, the inbox's /oauth/callback, Chromium signing in on
 * oidc-provider's own pages (the OAuth tests' one setup, test/helpers/oauth.ts), and the real CLI (`durable-mcp tools`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { DurableMcpClient, isToolCallFailure, type LoginWait } from '../../src/client/index.js';
import type { Request } from '../../src/contract/index.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import { loginStatusQuery, mcpListTools, pendingQuery } from '../../src/workflows/index.js';
import { spawnNode } from '../../scripts/processes.js';
import { run } from '../helpers/cli.js';
import { recordHistory, recordRunningHistory, workflowTaskFailures } from '../helpers/history.js';
import { oauthServers, oauthSuite, oneLoginEach } from '../helpers/oauth.js';
import { eventually } from '../helpers/temporal.js';

/** The tools of the fixture's v2 server (test/fixtures/oauth-server.ts, /mcp), sorted. */
const FIXTURE_TOOLS = ['echo', 'stubborn', 'whoami', 'write'];

const cliMain = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
/** The tool names of `durable-mcp tools` text output (a line a tool, its name first), sorted. */
const toolNames = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/\s+/)[0])
    .sort();

describe('mcpListTools of a server behind OAuth waits for its login (oidc-provider, Chromium, the inbox callback, the CLI)', () => {
  const servers = oneLoginEach('list', ['first', 'expires', 'cli', 'json', 'interrupted', 'perCall', 'recorded']);
  const suite = oauthSuite({
    name: 'oauth-list',
    mcpConfig: ({ fixture }) => oauthServers(fixture.mcp, Object.values(servers), [servers.perCall]),
    // The recorded listing's history is plaintext (the login's secrets are sealed all the same): it replays with any key.
    plainWorker: true,
  });
  const { taskQueue } = suite;
  const client = () => new DurableMcpClient(suite.env.client, { taskQueue });
  const login = (name: string, principal?: string) => suite.login(name, principal);
  const pendingSignIn = (name: string, principal?: string): Promise<Request> => suite.pendingSignIn(name, principal !== undefined ? { principal } : {});
  /** `durable-mcp tools <args>` as a process (it waits for sign-ins). */
  const cliTools = (...args: string[]) => spawnNode([cliMain, 'tools', ...args], suite.cliEnv);

  it('before any login: one authorization request (for the listing and a tool call together), and the tools once Chromium signed in', async () => {
    const told: LoginWait[] = [];
    const listing = client().listTools(servers.first, { onLoginRequest: (s) => told.push(s) });
    listing.catch(() => undefined); // awaited below: a failure shows there
    const request = await pendingSignIn(servers.first);
    assert.equal(request.kind, 'authorization');
    assert.match(request.prompt, new RegExp(`^Sign in to MCP server "${servers.first}" at `));
    // A tool call to the same server waits for the same sign-in: still one request.
    const call = await suite.call(servers.first, 'echo', { text: 'too' });
    await eventually(async () => (await login(servers.first).query(loginStatusQuery)).waiting === 2, 'the listing and the call waiting for the login');
    assert.deepEqual(
      (await login(servers.first).query(pendingQuery)).map((r) => r.id),
      [request.id],
      'one request for both',
    );
    await eventually(() => told.length > 0, 'the listing told of the sign-in');
    assert.equal(told.length, 1);
    assert.equal(told[0]!.loginWorkflowId, loginWorkflowId(servers.first));
    assert.deepEqual(told[0]!.request, request);

    assert.equal(await suite.signIn(request.url!), 'Signed in');
    const tools = await listing;
    assert.deepEqual(tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    assert.equal(tools.find((t) => t.name === 'echo')?.description, 'Echo the text');
    assert.equal((await call.result()).output, 'echo: too');
    // Signed in: the next listing uses the token at once, with no request.
    const again = await suite.env.client.workflow.execute(mcpListTools, {
      taskQueue,
      workflowId: `oauth-list-again-${Date.now()}`,
      args: [{ server: servers.first }],
    });
    assert.deepEqual(again.map((t) => t.name).sort(), FIXTURE_TOOLS);
    assert.equal((await login(servers.first).query(loginStatusQuery)).requestId, undefined);
    assert.equal((await suite.fixture.stats()).codeGrants, 1, 'one sign-in');
  });

  it('a sign-in that expires fails the listing with AuthorizationRequired', async () => {
    const workflowId = `oauth-list-expires-${Date.now()}`;
    const listing = client().listTools(servers.expires, { workflowId, expiresIn: '2s' });
    listing.catch(() => undefined); // asserted below
    // The failure names the expired sign-in: no look at the pending request, which a busy machine could miss in 2 s.
    await assert.rejects(listing, (err: unknown) => {
      assert.ok(isToolCallFailure(err, 'AuthorizationRequired'), String(err));
      assert.match(err.failureMessage, new RegExp(`server "${servers.expires}": the sign-in at .* was expired`));
      return true;
    });
    await assert.rejects(suite.env.client.workflow.getHandle(workflowId).result(), (err: unknown) => {
      assert.ok(err instanceof WorkflowFailedError);
      assert.equal((err.cause as { type?: string }).type, 'AuthorizationRequired');
      return true;
    });
    assert.equal((await login(servers.expires).query(loginStatusQuery)).state, 'signed-out');
  });

  it('durable-mcp tools shows the pending sign-in (its link, where else it is listed) and prints the tools once signed in', async () => {
    const cli = cliTools(servers.cli);
    try {
      await cli.waitFor(/waiting for the sign-in/);
      const request = await pendingSignIn(servers.cli);
      const stderr = cli.output();
      assert.match(stderr, new RegExp(`^durable-mcp: server "${servers.cli}" needs a sign-in before it lists its tools: Sign in to MCP server`, 'm'));
      assert.ok(stderr.includes(`\n  ${request.url}\n`), `the link on a line of its own:\n${stderr}`);
      assert.ok(stderr.includes(`it is request ${request.id} of ${loginWorkflowId(servers.cli)}`), stderr);
      assert.ok(stderr.includes(`expiring at ${request.expiresAt}`), stderr);
      assert.ok(stderr.includes(`durable-mcp pending ${loginWorkflowId(servers.cli)}`), stderr);
      assert.ok(stderr.includes('whoever signs in, signs in for every call to the server'), stderr);
      assert.equal(cli.stdout(), '', 'stdout stays the listing');
      assert.equal(await suite.signIn(request.url!), 'Signed in');
      assert.equal(await cli.exited, 0, cli.output());
      assert.deepEqual(toolNames(cli.stdout()), FIXTURE_TOOLS);
    } finally {
      await cli.kill();
    }
    // With --json: the sign-in is one JSON line on stderr (the Request as the login holds it); stdout the listing's object.
    const json = cliTools(servers.json, '--json');
    try {
      const line = JSON.parse(await json.waitFor(/\{"event":"sign-in".*\}/)) as { event: string; server: string; workflowId: string; request: Request };
      assert.equal(line.server, servers.json);
      assert.equal(line.workflowId, loginWorkflowId(servers.json));
      assert.deepEqual(line.request, await pendingSignIn(servers.json));
      assert.equal(await suite.signIn(line.request.url!), 'Signed in');
      assert.equal(await json.exited, 0, json.output());
      const out = JSON.parse(json.stdout()) as { server: string; tools: Array<{ name: string }> };
      assert.equal(out.server, servers.json);
      assert.deepEqual(out.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    } finally {
      await json.kill();
    }
  });

  it('Ctrl-C on durable-mcp tools stops waiting and cancels the listing; the sign-in stays pending for whoever answers it', async () => {
    const cli = cliTools(servers.interrupted);
    try {
      await cli.waitFor(/waiting for the sign-in/);
      cli.child.kill('SIGINT');
      assert.equal(await cli.exited, 130, cli.output());
      const id = /listing (mcp-tools-\S+) cancelled/.exec(cli.output())?.[1];
      assert.ok(id, cli.output());
      // Temporal records the cancellation at once; the listing ends CANCELLED when the worker takes it.
      await eventually(
        async () => (await suite.env.client.workflow.getHandle(id).describe()).status.name === 'CANCELLED' || undefined,
        'the listing cancelled',
      );
      const status = await login(servers.interrupted).query(loginStatusQuery);
      assert.equal(status.state, 'pending', 'the sign-in stays pending');
    } finally {
      await cli.kill();
    }
  });

  it('durable-mcp tools --principal P of a per-call server asks a sign-in that says it is P’s and lists once P signed in; another principal signs in on its own', async () => {
    const before = await suite.fixture.stats();
    for (const principal of ['ada', 'bob']) {
      const cli = cliTools(servers.perCall, '--principal', principal);
      try {
        await cli.waitFor(/waiting for the sign-in/);
        const request = await pendingSignIn(servers.perCall, principal);
        assert.equal(request.kind, 'authorization');
        assert.match(request.prompt, new RegExp(`^Sign in to MCP server "${servers.perCall}" as "${principal}" at `));
        const stderr = cli.output();
        assert.ok(stderr.includes(`needs a sign-in before it lists its tools: ${request.prompt}\n`), stderr);
        assert.ok(stderr.includes(`it is request ${request.id} of ${loginWorkflowId(servers.perCall, principal)}`), stderr);
        assert.ok(stderr.includes(`whoever signs in, signs in as "${principal}" for every call that names that principal`), stderr);
        if (principal === 'bob') assert.equal((await login(servers.perCall, 'ada').query(loginStatusQuery)).state, 'signed-in', 'ada stays signed in');
        assert.equal(await suite.signIn(request.url!, principal), 'Signed in');
        assert.equal(await cli.exited, 0, cli.output());
        assert.deepEqual(toolNames(cli.stdout()), FIXTURE_TOOLS);
      } finally {
        await cli.kill();
      }
      // The principal's own token: the server sees the account that signed in.
      assert.equal((await (await suite.call(servers.perCall, 'whoami', undefined, { principal })).result()).output, principal);
    }
    assert.equal((await suite.fixture.stats()).codeGrants - before.codeGrants, 2, 'one sign-in each');
    // Signed in: ada's next listing uses her token at once.
    const again = await run(['tools', servers.perCall, '--principal', 'ada'], suite.cliEnv);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /sign-in/);
    assert.deepEqual(toolNames(again.stdout), FIXTURE_TOOLS);
    assert.deepEqual(await login(servers.perCall, 'ada').query(pendingQuery), []);
  });

  it('a listing that waited for its login, and that login, replay from their histories (recorded without a codec: test/histories/list-tools-oauth-login.json, login-signed-in.json)', async () => {
    const { plain } = suite;
    const handle = await plain.client.workflow.start(mcpListTools, {
      taskQueue: plain.taskQueue,
      workflowId: `list-tools-oauth-login-${Date.now()}`,
      args: [{ server: servers.recorded }],
    });
    const request = await eventually(
      async () => (await plain.client.workflow.getHandle(loginWorkflowId(servers.recorded)).query(pendingQuery))[0],
      'the sign-in request',
    );
    assert.equal(await suite.signIn(request.url!), 'Signed in');
    assert.deepEqual((await handle.result()).map((t) => t.name).sort(), FIXTURE_TOOLS);
    assert.deepEqual(await workflowTaskFailures(handle), []);
    await recordHistory(handle, 'list-tools-oauth-login', suite.env.address);
    // Its login (mcpLogin) asked, signed in through the inbox's callback and told the listing: test/histories/login-signed-in.json.
    await recordRunningHistory(plain.client.workflow.getHandle(loginWorkflowId(servers.recorded)), 'login-signed-in', suite.env.address);
  });
});
