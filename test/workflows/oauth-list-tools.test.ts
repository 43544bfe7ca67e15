/**
 * Listing the tools of a server behind OAuth (docs/oauth.md, "Listing tools"): `mcpListTools` waits for the server's
 * login as a tool call does. End to end with real parts: oidc-provider in front of a v2 SDK MCP server requiring bearer
 * tokens (test/fixtures/oauth-server.ts), a dev server, a worker, the inbox's /oauth/callback, Chromium signing in on
 * oidc-provider's own pages, and the real CLI (`durable-mcp tools`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium, type Browser } from 'playwright-core';
import { DurableMcpClient, ToolCallFailedError, type SignInPending } from '../../src/client/index.js';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/client/codec.js';
import type { Request } from '../../src/contract/index.js';
import { loginWorkflowId } from '../../src/contract/login.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CredentialSeal, SEAL_KEY_LABEL } from '../../src/mcp/index.js';
import { loginStatusQuery, mcpListTools, mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import type { DurableMcpWorker } from '../../src/worker.js';
import { spawnNode } from '../../scripts/processes.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { recordHistory, workflowTaskFailures } from '../helpers/history.js';
import { signIn, startOAuthFixture, type OAuthFixture } from '../helpers/oauth.js';
import { createLocalEnv, eventually, startWorker, uniqueTaskQueue } from '../helpers/temporal.js';

/** The tools of the fixture's v2 server (test/fixtures/oauth-server.ts, /mcp), sorted. */
const FIXTURE_TOOLS = ['echo', 'stubborn', 'whoami', 'write'];

const cliMain = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

describe('mcpListTools of a server behind OAuth waits for its login (oidc-provider, Chromium, the inbox callback, the CLI)', () => {
  let env: TestWorkflowEnvironment;
  let fixture: OAuthFixture;
  let inbox: InboxHandle;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  let browser: Browser;
  let client: DurableMcpClient;
  const taskQueue = uniqueTaskQueue('oauth-list');
  const keyText = generateEncryptionKey('k1');
  const codec = new EncryptionCodec(parseEncryptionKeys(keyText, 'test'));
  const seal = new CredentialSeal(codec.deriveKeys(SEAL_KEY_LABEL));
  // One login each: a test's sign-ins do not disturb another's.
  const servers = {
    first: `list${process.pid}`,
    expires: `listexp${process.pid}`,
    cli: `listcli${process.pid}`,
    json: `listjson${process.pid}`,
    interrupted: `listint${process.pid}`,
    recorded: `listrec${process.pid}`,
  };

  before(async () => {
    env = await createLocalEnv({ searchAttributes: true, encryption: codec });
    fixture = await startOAuthFixture();
    inbox = await startInbox({ client: env.client, host: '127.0.0.1', port: 0, sealCode: (code) => seal.seal({ code }) });
    worker = await startWorker(env, {
      taskQueue,
      encryption: codec,
      mcpConfig: { mcpServers: Object.fromEntries(Object.values(servers).map((name) => [name, { url: fixture.mcp, auth: 'oauth' }])) },
      oauth: { redirectUrl: new URL('oauth/callback', inbox.url).href },
    });
    running = worker.run();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    client = new DurableMcpClient(env.client, { taskQueue });
    // listTools refuses at once when no worker polls the task queue: start the tests once this worker's poll shows.
    await eventually(async () => {
      const q = await env.client.workflowService.describeTaskQueue({ namespace: env.namespace ?? 'default', taskQueue: { name: taskQueue }, taskQueueType: 1 });
      return (q.pollers ?? []).length > 0 ? true : undefined;
    }, `a poller on task queue ${taskQueue}`);
  });
  after(async () => {
    await browser?.close();
    worker?.shutdown();
    await running;
    await inbox?.close();
    await fixture?.close();
    await env?.teardown();
  });

  const login = (name: string) => env.client.workflow.getHandle(loginWorkflowId(name));
  const pendingSignIn = async (name: string): Promise<Request> =>
    eventually(async () => (await login(name).query(pendingQuery))[0], `${name}'s sign-in request`);

  it('before any login: one authorization request (for the listing and a tool call together), and the tools once Chromium signed in', async () => {
    const told: SignInPending[] = [];
    const listing = client.listTools(servers.first, { onSignIn: (s) => told.push(s) });
    listing.catch(() => undefined); // awaited below: a failure shows there
    const request = await pendingSignIn(servers.first);
    assert.equal(request.kind, 'authorization');
    assert.match(request.prompt, new RegExp(`^Sign in to MCP server "${servers.first}" at `));
    // A tool call to the same server waits for the same sign-in: still one request.
    const call = await env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `oauth-list-call-${Date.now()}`,
      args: [{ server: servers.first, tool: 'echo', arguments: { text: 'too' } }],
    });
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

    assert.equal(await signIn(browser, request.url!), 'Signed in');
    const tools = await listing;
    assert.deepEqual(tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    assert.equal(tools.find((t) => t.name === 'echo')?.description, 'Echo the text');
    assert.equal((await call.result()).output, 'echo: too');
    // Signed in: the next listing uses the token at once, with no request.
    const again = await env.client.workflow.execute(mcpListTools, {
      taskQueue,
      workflowId: `oauth-list-again-${Date.now()}`,
      args: [{ server: servers.first }],
    });
    assert.deepEqual(again.map((t) => t.name).sort(), FIXTURE_TOOLS);
    assert.equal((await login(servers.first).query(loginStatusQuery)).requestId, undefined);
    assert.equal((await fixture.stats()).codeGrants, 1, 'one sign-in');
  });

  it('a sign-in that expires fails the listing with AuthorizationRequired', async () => {
    const workflowId = `oauth-list-expires-${Date.now()}`;
    const listing = client.listTools(servers.expires, { workflowId, expiresIn: '2s' });
    listing.catch(() => undefined); // asserted below
    const request = await pendingSignIn(servers.expires);
    assert.ok(request.expiresAt);
    await assert.rejects(listing, (err: unknown) => {
      assert.ok(err instanceof ToolCallFailedError, String(err));
      assert.equal(err.type, 'AuthorizationRequired');
      assert.match(err.failureMessage, new RegExp(`server "${servers.expires}": the sign-in at .* was expired`));
      return true;
    });
    await assert.rejects(env.client.workflow.getHandle(workflowId).result(), (err: unknown) => {
      assert.ok(err instanceof WorkflowFailedError);
      assert.equal((err.cause as { type?: string }).type, 'AuthorizationRequired');
      return true;
    });
    assert.equal((await login(servers.expires).query(loginStatusQuery)).state, 'signed-out');
  });

  it('durable-mcp tools shows the pending sign-in (its link, where else it is listed) and prints the tools once signed in', async () => {
    const cli = spawnNode([cliMain, 'tools', servers.cli], {
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: keyText,
    });
    try {
      await cli.waitFor(/waiting for the sign-in/);
      const request = await pendingSignIn(servers.cli);
      const stderr = cli.output();
      assert.match(stderr, new RegExp(`^durable-mcp: server "${servers.cli}" needs a sign-in before it lists its tools: Sign in to MCP server`, 'm'));
      assert.ok(stderr.includes(`\n  ${request.url}\n`), `the link on a line of its own:\n${stderr}`);
      assert.ok(stderr.includes(`it is request ${request.id} of ${loginWorkflowId(servers.cli)}`), stderr);
      assert.ok(stderr.includes(`expiring at ${request.expiresAt}`), stderr);
      assert.ok(stderr.includes(`durable-mcp pending ${loginWorkflowId(servers.cli)}`), stderr);
      assert.equal(cli.stdout(), '', 'stdout stays the listing');
      assert.equal(await signIn(browser, request.url!), 'Signed in');
      assert.equal(await cli.exited, 0, cli.output());
      assert.deepEqual(
        cli
          .stdout()
          .trimEnd()
          .split('\n')
          .map((l) => l.split(/\s+/)[0])
          .sort(),
        FIXTURE_TOOLS,
      );
    } finally {
      await cli.kill();
    }
    // With --json: the sign-in is one JSON line on stderr (the Request as the login holds it); stdout the listing's object.
    const json = spawnNode([cliMain, 'tools', servers.json, '--json'], {
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: keyText,
    });
    try {
      const line = JSON.parse(await json.waitFor(/\{"event":"sign-in".*\}/)) as { event: string; server: string; workflowId: string; request: Request };
      assert.equal(line.server, servers.json);
      assert.equal(line.workflowId, loginWorkflowId(servers.json));
      assert.deepEqual(line.request, await pendingSignIn(servers.json));
      assert.equal(await signIn(browser, line.request.url!), 'Signed in');
      assert.equal(await json.exited, 0, json.output());
      const out = JSON.parse(json.stdout()) as { server: string; tools: Array<{ name: string }> };
      assert.equal(out.server, servers.json);
      assert.deepEqual(out.tools.map((t) => t.name).sort(), FIXTURE_TOOLS);
    } finally {
      await json.kill();
    }
  });

  it('Ctrl-C on durable-mcp tools stops waiting and cancels the listing; the sign-in stays pending for whoever answers it', async () => {
    const cli = spawnNode([cliMain, 'tools', servers.interrupted], {
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: keyText,
    });
    try {
      await cli.waitFor(/waiting for the sign-in/);
      cli.child.kill('SIGINT');
      assert.equal(await cli.exited, 130, cli.output());
      const id = /listing (mcp-tools-\S+) cancelled/.exec(cli.output())?.[1];
      assert.ok(id, cli.output());
      assert.equal((await env.client.workflow.getHandle(id).describe()).status.name, 'CANCELLED');
      const status = await login(servers.interrupted).query(loginStatusQuery);
      assert.equal(status.state, 'pending', 'the sign-in stays pending');
    } finally {
      await cli.kill();
    }
  });

  it('a listing that waited for its login replays from its history (recorded without a codec: test/histories/list-tools-oauth-login.json)', async () => {
    // Plaintext payloads (the login's secrets are sealed all the same), so the committed history replays with any key.
    const plain = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
    const plainInbox = await startInbox({ client: plain, host: '127.0.0.1', port: 0, sealCode: (code) => seal.seal({ code }) });
    const queue = uniqueTaskQueue('oauth-list-plain');
    const plainWorker = await startWorker(env, {
      taskQueue: queue,
      encryption: false,
      mcpConfig: { mcpServers: { [servers.recorded]: { url: fixture.mcp, auth: 'oauth' } } },
      oauth: { seal, redirectUrl: new URL('oauth/callback', plainInbox.url).href },
    });
    const plainRunning = plainWorker.run();
    try {
      const handle = await plain.workflow.start(mcpListTools, {
        taskQueue: queue,
        workflowId: `list-tools-oauth-login-${Date.now()}`,
        args: [{ server: servers.recorded }],
      });
      const request = await eventually(
        async () => (await plain.workflow.getHandle(loginWorkflowId(servers.recorded)).query(pendingQuery))[0],
        'the sign-in request',
      );
      assert.equal(await signIn(browser, request.url!), 'Signed in');
      assert.deepEqual((await handle.result()).map((t) => t.name).sort(), FIXTURE_TOOLS);
      assert.deepEqual(await workflowTaskFailures(handle), []);
      await recordHistory(handle, 'list-tools-oauth-login', env.address);
    } finally {
      plainWorker.shutdown();
      await plainRunning;
      await plainInbox.close();
    }
  });
});
