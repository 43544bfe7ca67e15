/**
 * No secret of a sign-in anywhere a person or a log reader looks (docs/oauth.md): the access and refresh tokens, the
 * authorization code, the PKCE verifier and a pre-registered client's secret are searched for in every log line of the
 * process (every SDK level), the CLI's `pending` output, the inbox page and the callback page, the notifications sent
 * to a webhook (with `includePrompt`), and the plaintext history of every workflow; a machine's login (client
 * credentials) beside it, whose client secret and tokens are searched for too. The worker runs without a payload
 * codec, as `dev` does without a key: the history is plaintext, and the login's secrets are sealed all the same.
 * The secrets are learned by observing the OAuth requests (the worker's fetch, passed through unchanged).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { loginWorkflowId } from '../../src/contract/login.js';
import { mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import { run } from '../helpers/cli.js';
import { captureRuntimeLogs, logText, eventually } from '../helpers/temporal.js';
import { LOOPBACK_AUTH, oauthSuite, signInOnPage } from '../helpers/oauth.js';

const { temporal } = proto;
type History = proto.temporal.api.history.v1.IHistory;

// Every log line of this process, kept to search.
const logged = captureRuntimeLogs();

describe('the secrets of a sign-in stay out of logs, CLI output, pages, notifications and history', () => {
  let hook: ReturnType<typeof createServer>;
  const notified: string[] = [];
  const server = `vault${process.pid}`;
  const clientSecret = `cs-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  /** What the OAuth requests carried: codes, verifiers, tokens (request bodies and token responses). */
  // A machine's login (client credentials) beside the person's: its secret and tokens are searched for too.
  const machine = `machine${process.pid}`;
  const machineSecret = `ms-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const secrets = new Set<string>([clientSecret, machineSecret]);
  const observe = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === 'string' ? new URLSearchParams(init.body) : init?.body instanceof URLSearchParams ? init.body : undefined;
    for (const k of ['code', 'code_verifier', 'refresh_token', 'client_secret']) {
      const v = body?.get(k);
      if (v) secrets.add(v);
    }
    const res = await fetch(url, init);
    if (String(url).endsWith('/token') && res.ok) {
      const json = (await res.clone().json()) as { access_token?: string; refresh_token?: string };
      if (json.access_token) secrets.add(json.access_token);
      if (json.refresh_token) secrets.add(json.refresh_token);
    }
    return res;
  };

  // The webhook listens before the suite's worker starts (its config names it).
  before(async () => {
    hook = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString('utf8')));
      req.on('end', () => {
        notified.push(`${JSON.stringify(req.headers)} ${b}`);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    process.env.VAULT_CLIENT_SECRET = clientSecret;
    process.env.MACHINE_CLIENT_SECRET = machineSecret;
  });
  after(async () => {
    await new Promise<void>((r) => hook?.close(() => r()));
  });
  const suite = oauthSuite({
    name: 'oauth-secrets',
    encryption: 'dev',
    fixtureEnv: (redirectUrl) => ({
      FIXTURE_CLIENT_ID: 'durable-mcp-test',
      FIXTURE_CLIENT_SECRET: clientSecret,
      FIXTURE_REDIRECT_URI: redirectUrl,
      FIXTURE_MACHINE_CLIENTS: JSON.stringify([{ client_id: 'durable-mcp-machine', client_secret: machineSecret }]),
    }),
    mcpConfig: ({ fixture, inbox }) => ({
      mcpServers: {
        [server]: { url: fixture.mcp, auth: { ...LOOPBACK_AUTH, clientId: 'durable-mcp-test', clientSecret: '${VAULT_CLIENT_SECRET}', scopes: ['tools'] } },
        [machine]: {
          url: fixture.mcp,
          auth: { ...LOOPBACK_AUTH, grant: 'client_credentials', clientId: 'durable-mcp-machine', clientSecret: '${MACHINE_CLIENT_SECRET}' },
        },
      },
      notify: { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, includePrompt: true, inboxUrl: inbox.url },
    }),
    oauth: { fetchFn: observe },
  });
  const { taskQueue } = suite;

  it('signs in (a pre-registered client with a secret), refreshes, and no secret shows anywhere', async () => {
    const login = suite.env.client.workflow.getHandle(loginWorkflowId(server));
    const first = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue,
      workflowId: `secrets-1-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'a' } }],
    });
    const request = await eventually(async () => (await login.query(pendingQuery))[0], 'the sign-in request');
    const cliEnv = { TEMPORAL_ADDRESS: suite.env.address, TEMPORAL_NAMESPACE: 'default', DURABLE_MCP_TASK_QUEUE: taskQueue };
    const outputs: string[] = [];
    for (const args of [['pending', '--json'], ['pending'], ['pending', loginWorkflowId(server), '--json']]) {
      const r = await run(args, cliEnv);
      outputs.push(r.stdout, r.stderr);
    }
    assert.ok(
      outputs.some((o) => o.includes(request.id)),
      `pending lists the sign-in: ${outputs.join('\n')}`,
    );
    outputs.push(await (await fetch(suite.inbox.url)).text());
    const page = await suite.browser.newPage();
    await signInOnPage(page, request.url!, 'ada', 'pw');
    outputs.push(await page.content(), page.url().replace(/code=[^&]+/, 'code=(in the address bar)'));
    await page.close();
    assert.equal((await first.result()).output, 'echo: a');
    await suite.fixture.control('/__expire-access');
    const second = await suite.env.client.workflow.execute(mcpToolCall, {
      taskQueue,
      workflowId: `secrets-2-${Date.now()}`,
      args: [{ server, tool: 'echo', arguments: { text: 'b' } }],
    });
    assert.equal(second.output, 'echo: b');
    const byMachine = await suite.env.client.workflow.execute(mcpToolCall, {
      taskQueue,
      workflowId: `secrets-machine-${Date.now()}`,
      args: [{ server: machine, tool: 'echo', arguments: { text: 'm' } }],
    });
    assert.equal(byMachine.output, 'echo: m');
    await eventually(() => notified.length > 0, 'the notification of the sign-in request');

    const kinds = ['code', 'verifier', 'access', 'refresh'].length;
    assert.ok(secrets.size >= kinds + 1, `the observed secrets: ${secrets.size}`);
    const raw = new Client({ connection: suite.env.connection, namespace: 'default' });
    const histories: string[] = [];
    for await (const wf of raw.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
      const h = (await raw.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory()) as History;
      histories.push(
        historyToJSON(h as Parameters<typeof historyToJSON>[0]),
        Buffer.from(temporal.api.history.v1.History.encode(h).finish()).toString('latin1'),
      );
    }
    assert.ok(histories.length >= 6, 'the histories of the calls and of the login');
    assert.ok(
      histories.some((h) => h.includes('s1.dev.')),
      'the login holds its secrets sealed',
    );
    const places: Record<string, string[]> = {
      logs: logged.map(logText),
      'CLI output and pages': outputs,
      notifications: notified,
      'plaintext history': histories,
    };
    for (const secret of secrets) {
      for (const [where, texts] of Object.entries(places)) {
        const b64 = Buffer.from(secret).toString('base64');
        assert.equal(
          texts.some((t) => t.includes(secret) || t.includes(b64)),
          false,
          `a secret (${secret.length} characters, starting ${secret.slice(0, 3)}…) is in the ${where}`,
        );
      }
    }
  });
});
