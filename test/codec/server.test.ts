/**
 * The codec server against real payloads: `durable-mcp dev` with a key (its own Temporal dev server, its codec server,
 * its Temporal UI pointed at it), a worker and a client of this test encrypting with the same key, a tool call that
 * asks a name and is answered; then the codec server's protocol, token, CORS and namespaces over HTTP, the real
 * `durable-mcp codec-server` command, the real Temporal CLI (`durable-mcp temporal workflow show --codec-endpoint`),
 * and the real Temporal UI of `dev` in headless Chromium showing the decoded answer.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Browser } from 'playwright-core';
import { dataConverterOf, EncryptionCodec, ENCRYPTED_ENCODING, parseEncryptionKeys } from '../../src/codec/index.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { isCodecError } from '../../src/codec/errors.js';
import { payloadsFromJson, payloadsToJson, startCodecServer, type CodecServerHandle } from '../../src/codec/server.js';
import { createWorker, type DurableMcpWorker } from '../../src/worker.js';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { cli, EXIT, run, startDevRetrying } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { fixtureConfig, quietRuntime, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';

const { temporal } = proto;

/** Every stdout line that is JSON, parsed. */
function jsonLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Every payload (an object with metadata and data) anywhere in a history; `json`: of the CLI's JSON (data as base64). */
function payloadsIn(value: unknown, out: Payload[] = [], json = false): Payload[] {
  if (value === null || typeof value !== 'object') return out;
  if (value instanceof Uint8Array) return out;
  const v = value as Record<string, unknown>;
  if (v.metadata && typeof v.metadata === 'object' && (json ? typeof v.data === 'string' : v.data instanceof Uint8Array)) out.push(v as Payload);
  for (const child of Array.isArray(value) ? value : Object.values(v)) payloadsIn(child, out, json);
  return out;
}

const encodingOf = (p: Payload) => Buffer.from(p.metadata?.encoding ?? new Uint8Array()).toString();

/** An HTTP request with any Host header (fetch cannot set one). */
function rawRequest(url: string, options: { method: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method, headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the codec server', () => {
  const keyText = `k1:${randomBytes(32).toString('base64')}`;
  const keyMaterial = keyText.slice(3);
  const codec = new EncryptionCodec(parseEncryptionKeys(keyText, 'test key'));
  const token = `tok-${randomBytes(24).toString('hex')}`;
  /** What the person answers: it must never be in the raw history, and the codec server shows it. */
  const name = `Ada-${randomUUID()}`;
  const taskQueue = uniqueTaskQueue('codec');
  const procs: SpawnedProcess[] = [];
  const spawnCli = (args: string[], env: Record<string, string | undefined>) => {
    const p = spawnNode([cli, ...args], env);
    procs.push(p);
    return p;
  };
  let dev: SpawnedProcess;
  let ready: Record<string, any>;
  let worker: DurableMcpWorker;
  let running: Promise<void>;
  let connection: Connection;
  let workflowId: string;
  let runId: string;
  /** The raw history, as the Temporal server stores it (fetched without the codec). */
  let rawHistory: proto.temporal.api.history.v1.IHistory;
  let rawBytes: Buffer;
  /** A codec server of this process, with the token and the UI of `dev` as its origin. */
  let server: CodecServerHandle;
  /** `durable-mcp codec-server` with the token. */
  let command: SpawnedProcess;
  let commandUrl: string;
  let browser: Browser | undefined;
  const decodeBody = () => JSON.stringify(payloadsToJson(payloadsIn(rawHistory).filter((p) => encodingOf(p) === ENCRYPTED_ENCODING)));

  before(async () => {
    quietRuntime();
    const port = await freePort();
    const uiPort = await freePort();
    dev = await startDevRetrying(
      () =>
        spawnCli(
          ['dev', '--json', '--data-dir', tempDir('codec-dev-'), '--port', String(port), '--ui-port', String(uiPort), '--inbox-port', '0', '--codec-port', '0'],
          {
            TEMPORAL_ADDRESS: undefined,
            DURABLE_MCP_ENCRYPTION_KEYS: keyText,
            DURABLE_MCP_ENCRYPTION_KEYS_FILE: undefined,
            DURABLE_MCP_TASK_QUEUE: uniqueTaskQueue('codec-dev'),
          },
        ),
      /"event":"ready"/,
    );
    ready = jsonLines(dev.stdout()).find((e) => e.event === 'ready')!;
    const address = ready.temporal.address as string;

    // This test's worker and client encrypt with the key: the payloads of the call are the codec's.
    const dataConverter = dataConverterOf(codec);
    worker = await createWorker({
      connection: await NativeConnection.connect({ address }),
      namespace: 'default',
      taskQueue,
      mcpConfig: fixtureConfig(join(tempDir(), 'fixture.jsonl')),
      encryption: codec,
    });
    running = worker.run();
    connection = await Connection.connect({ address });
    const dmc = new DurableMcpClient(new Client({ connection, namespace: 'default', dataConverter }), { taskQueue });
    const started = await dmc.startToolCallAndWaitForPending({ server: 'fx', tool: 'ask_name' });
    workflowId = started.handle.workflowId;
    runId = (await started.handle.describe()).runId;
    assert.equal(started.pending.length, 1);
    await dmc.accept(workflowId, started.pending[0].id, { name });
    assert.equal((await dmc.result(workflowId)).output, `hello ${name}`);

    const plain = new Client({ connection, namespace: 'default' });
    rawHistory = await plain.workflow.getHandle(workflowId).fetchHistory();
    rawBytes = Buffer.from(temporal.api.history.v1.History.encode(rawHistory).finish());

    server = await startCodecServer({ codec, port: 0, token, uiOrigins: [ready.temporal.uiUrl], namespaces: ['default'] });
    command = spawnCli(['codec-server', '--json', '--port', '0', '--ui-origin', ready.temporal.uiUrl], {
      DURABLE_MCP_ENCRYPTION_KEYS: keyText,
      DURABLE_MCP_CODEC_TOKEN: token,
    });
    await command.waitFor(/"event":"ready"/, 30_000);
    commandUrl = jsonLines(command.stdout()).find((e) => e.event === 'ready')!.url;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    worker?.shutdown();
    await running;
    await connection?.close();
    for (const p of procs) await p.kill('SIGINT');
    await dev?.exited;
  });

  it('the raw history holds only encrypted payloads: not the prompt, the answer or the tool result', () => {
    const payloads = payloadsIn(rawHistory);
    assert.ok(payloads.length >= 4, `the history has payloads (${payloads.length})`);
    // Not encoded: search attributes (docs/encryption.md) and the SDK's own patch markers (a patch id); everything else is.
    const plain = new Set(
      payloadsIn(
        rawHistory.events?.map((e) => [
          e.workflowExecutionStartedEventAttributes?.searchAttributes,
          e.upsertWorkflowSearchAttributesEventAttributes,
          e.markerRecordedEventAttributes?.markerName === 'core_patch' ? e.markerRecordedEventAttributes : undefined,
        ]),
      ),
    );
    for (const p of payloads) if (!plain.has(p)) assert.equal(encodingOf(p), ENCRYPTED_ENCODING);
    assert.ok(payloads.filter((p) => !plain.has(p)).length >= 4, 'the input, update, activity and result payloads are encrypted');
    for (const secret of [name, 'What is your name?', `hello ${name}`])
      assert.ok(!rawBytes.includes(Buffer.from(secret)), `the raw history does not contain ${secret}`);
  });

  it('decodes with the token (Authorization: Bearer) and refuses without it or with another (401)', async () => {
    for (const url of [server.url, commandUrl]) {
      const ok = await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Authorization: `Bearer ${token}` },
        body: decodeBody(),
      });
      assert.equal(ok.status, 200);
      const text = await ok.text();
      assert.ok(decodedText(text).includes(name), 'the answer is decoded');
      assert.ok(decodedText(text).includes(`hello ${name}`), 'the tool result is decoded');
      for (const headers of [{}, { Authorization: `Bearer ${token}x` }, { Authorization: token }] as Array<Record<string, string>>) {
        const refused = await fetch(`${url}/decode`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
          body: decodeBody(),
        });
        assert.equal(refused.status, 401);
        const body = await refused.text();
        assert.ok(!body.includes(name) && !body.includes(token), 'a refusal shows neither payloads nor the token');
      }
    }
  });

  it('encode then decode round-trips the payloads of the real history; decode equals the codec itself', async () => {
    const encrypted = payloadsIn(rawHistory).filter((p) => encodingOf(p) === ENCRYPTED_ENCODING);
    const post = async (path: string, body: string) => {
      const r = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Authorization: `Bearer ${token}` },
        body,
      });
      assert.equal(r.status, 200, await r.clone().text());
      return (await r.json()) as { payloads: unknown[] };
    };
    const decoded = await post('/decode', decodeBody());
    assert.deepEqual(decoded, payloadsToJson(await codec.decode(encrypted)));
    const decodedPayloads = payloadsFromJson(decoded);
    assert.ok(decodedPayloads.every((p) => encodingOf(p) !== ENCRYPTED_ENCODING));
    // Under any prefix (the protocol looks at the last segment only).
    const reEncoded = await post('/default/encode', JSON.stringify(decoded));
    const again = payloadsFromJson(reEncoded);
    assert.ok(again.every((p) => encodingOf(p) === ENCRYPTED_ENCODING));
    assert.notDeepEqual(reEncoded, payloadsToJson(encrypted), 'a fresh nonce each time');
    assert.deepEqual(await post('/decode', JSON.stringify(reEncoded)), decoded);
  });

  it('a CORS preflight from the UI origin is granted (with credentials); from another origin it gets no Access-Control-Allow-Origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-namespace' },
      });
    const granted = await preflight(ready.temporal.uiUrl);
    assert.ok(granted.status === 204 || granted.status === 200);
    assert.equal(granted.headers.get('access-control-allow-origin'), ready.temporal.uiUrl);
    assert.equal(granted.headers.get('access-control-allow-credentials'), 'true');
    const allowed = (granted.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const h of ['authorization', 'content-type', 'x-namespace']) assert.ok(allowed.includes(h), `${h} is allowed`);
    assert.match(granted.headers.get('access-control-allow-methods') ?? '', /POST/);

    const denied = await preflight('http://evil.example:8233');
    assert.equal(denied.headers.get('access-control-allow-origin'), null);
    const post = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { Origin: 'http://evil.example:8233', 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'X-Namespace': 'default' },
      body: decodeBody(),
    });
    assert.equal(post.headers.get('access-control-allow-origin'), null, 'no grant on the answer either');
  });

  it('serves only the namespaces it is given; a token-less codec server answers only under a loopback Host and binds only to loopback', async () => {
    const other = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'other', Authorization: `Bearer ${token}` },
      body: decodeBody(),
    });
    assert.equal(other.status, 403);
    assert.ok(!(await other.text()).includes(name));
    const textPlain = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'X-Namespace': 'default', Authorization: `Bearer ${token}` },
      body: decodeBody(),
    });
    assert.equal(textPlain.status, 415, 'JSON only (a cross-site form post cannot skip the preflight)');

    const open = await startCodecServer({ codec, port: 0 });
    try {
      const { port } = new URL(open.url);
      const rebound = await rawRequest(`${open.url}/decode`, {
        method: 'POST',
        headers: { Host: `attacker.example:${port}`, 'Content-Type': 'application/json' },
        body: decodeBody(),
      });
      assert.equal(rebound.status, 421);
      assert.ok(!rebound.body.includes(name));
      const local = await rawRequest(`${open.url}/decode`, {
        method: 'POST',
        headers: { Host: `localhost:${port}`, 'Content-Type': 'application/json' },
        body: decodeBody(),
      });
      assert.equal(local.status, 200);
    } finally {
      await open.close();
    }
    await assert.rejects(startCodecServer({ codec, host: '0.0.0.0', port: 0 }), (err: unknown) => isCodecError(err, 'TokenRequired') && err.host === '0.0.0.0');
    const refused = await run(['codec-server', '--json', '--host', '0.0.0.0', '--port', '0'], {
      DURABLE_MCP_ENCRYPTION_KEYS: keyText,
      DURABLE_MCP_CODEC_TOKEN: '',
    });
    assert.equal(refused.code, EXIT.USAGE, refused.stderr);
    assert.match(jsonLines(refused.stdout)[0].message, /without a token: set DURABLE_MCP_CODEC_TOKEN/);
    const noKeys = await run(['codec-server', '--json', '--port', '0'], { DURABLE_MCP_ENCRYPTION_KEYS: '', DURABLE_MCP_ENCRYPTION_KEYS_FILE: '' });
    assert.equal(noKeys.code, EXIT.USAGE, noKeys.stderr);
    assert.match(jsonLines(noKeys.stdout)[0].message, /DURABLE_MCP_ENCRYPTION_KEYS/);
  });

  it('a browser trades /?token= for an HttpOnly SameSite cookie, which then decodes (the UI with credentials included)', async () => {
    const traded = await fetch(`${server.url}/?token=${token}`, { redirect: 'manual' });
    assert.equal(traded.status, 303);
    assert.equal(traded.headers.get('location'), '/', 'the token leaves the address bar');
    const cookie = traded.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    const withCookie = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Cookie: cookie.split(';')[0] },
      body: decodeBody(),
    });
    assert.equal(withCookie.status, 200);
    assert.ok(decodedText(await withCookie.text()).includes(name));
    const wrong = await fetch(`${server.url}/?token=nope`, { redirect: 'manual' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
  });

  it('`durable-mcp temporal workflow show --codec-endpoint` shows the decoded answer (with --codec-auth for a token); without it, only ciphertext', async () => {
    const address = ready.temporal.address as string;
    /** The text of every payload's data in the CLI's JSON history (`--output json` shows payloads as base64). */
    const shown = (stdout: string) =>
      payloadsIn(JSON.parse(stdout), [], true)
        .map((p) => Buffer.from(p.data as unknown as string, 'base64').toString('utf8'))
        .join('\n');
    const show = (...extra: string[]) =>
      run(['temporal', 'workflow', 'show', '--workflow-id', workflowId, '--address', address, '--output', 'json', ...extra], {});
    const raw = await show();
    assert.equal(raw.code, 0, raw.stderr);
    assert.ok(!shown(raw.stdout).includes(name), 'without the codec the CLI shows no answer');
    assert.ok(raw.stdout.includes(Buffer.from(ENCRYPTED_ENCODING).toString('base64')), 'but ciphertext');

    // dev's codec server: loopback, no token.
    const viaDev = await show('--codec-endpoint', ready.codecUrl);
    assert.equal(viaDev.code, 0, viaDev.stderr);
    assert.ok(shown(viaDev.stdout).includes(JSON.stringify({ name })), 'the answer, decoded');
    assert.ok(shown(viaDev.stdout).includes(`hello ${name}`), 'the tool result, decoded');
    assert.ok(!viaDev.stdout.includes(Buffer.from(ENCRYPTED_ENCODING).toString('base64')), 'no ciphertext left');

    // `durable-mcp codec-server` with a token.
    const viaCommand = await show('--codec-endpoint', commandUrl, '--codec-auth', `Bearer ${token}`);
    assert.equal(viaCommand.code, 0, viaCommand.stderr);
    assert.ok(shown(viaCommand.stdout).includes(`hello ${name}`));
    const unauthorized = await show('--codec-endpoint', commandUrl);
    assert.notEqual(unauthorized.code, 0, 'no token: the CLI fails');
    assert.ok(!unauthorized.stdout.includes(name) && !unauthorized.stdout.includes(Buffer.from(name).toString('base64')), 'no token, no answer');
    for (const r of [raw, viaDev, viaCommand, unauthorized]) assert.ok(!`${r.stdout}${r.stderr}`.includes(token), 'the CLI never prints the token');
  });

  it("with a key, an answer through dev's inbox and one by a bare `temporal workflow signal` through the codec server reach the tool; neither is in the raw history", async () => {
    const address = ready.temporal.address as string;
    const dmc = new DurableMcpClient(new Client({ connection, namespace: 'default', dataConverter: dataConverterOf(codec) }), { taskQueue });
    const viaInbox = `Grace-${randomUUID()}`;
    const viaSignal = `Edsger-${randomUUID()}`;

    // The inbox of dev (a Temporal client with the key) takes the answer as a person's form post would, through its JSON API.
    const first = await dmc.startToolCallAndWaitForPending({ server: 'fx', tool: 'ask_name' });
    const posted = await fetch(new URL('api/answer', ready.inboxUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowId: first.handle.workflowId, answer: { id: first.pending[0].id, ok: true, data: { name: viaInbox } } }),
    });
    assert.equal(posted.status, 200, await posted.clone().text());
    assert.equal((await dmc.result(first.handle.workflowId)).output, `hello ${viaInbox}`);

    // A person with only the Temporal CLI: the signal's input is encoded by the codec server (--codec-endpoint).
    const second = await dmc.startToolCallAndWaitForPending({ server: 'fx', tool: 'ask_name' });
    const answer = JSON.stringify({ id: second.pending[0].id, ok: true, data: { name: viaSignal } });
    const signalled = await run(
      [
        'temporal',
        'workflow',
        'signal',
        '--workflow-id',
        second.handle.workflowId,
        '--name',
        'answer',
        '--input',
        answer,
        '--address',
        address,
        '--codec-endpoint',
        commandUrl,
        '--codec-auth',
        `Bearer ${token}`,
      ],
      {},
    );
    assert.equal(signalled.code, 0, signalled.stderr);
    assert.equal((await dmc.result(second.handle.workflowId)).output, `hello ${viaSignal}`);

    const plain = new Client({ connection, namespace: 'default' });
    for (const [id, secret] of [
      [first.handle.workflowId, viaInbox],
      [second.handle.workflowId, viaSignal],
    ] as const) {
      const raw = Buffer.from(temporal.api.history.v1.History.encode(await plain.workflow.getHandle(id).fetchHistory()).finish());
      assert.ok(!raw.includes(secret), `the raw history of ${id} does not hold the answer`);
      const signals = (await plain.workflow.getHandle(id).fetchHistory()).events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
      if (id === second.handle.workflowId) assert.equal(signals.length, 1, 'the answer arrived as one signal');
      for (const e of signals) {
        for (const p of e.workflowExecutionSignaledEventAttributes!.input?.payloads ?? [])
          assert.equal(encodingOf(p), ENCRYPTED_ENCODING, 'the signal is stored encrypted');
      }
    }
  });

  it('`dev` points its Temporal UI at its codec server, and the UI in headless Chromium shows the decoded answer', async () => {
    const settings = (await (await fetch(`${ready.temporal.uiUrl}/api/v1/settings`)).json()) as { Codec?: { Endpoint?: string } };
    assert.equal(settings.Codec?.Endpoint, ready.codecUrl, "the UI's codec endpoint is dev's codec server");

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext();
    const page = await context.newPage();
    const decodes: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().startsWith(`${ready.codecUrl}/decode`)) decodes.push(r.url());
    });
    await page.goto(`${ready.temporal.uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}/history`);
    await page.waitForFunction((text) => (globalThis as any).document.body.innerText.includes(text), `hello ${name}`, { timeout: 60_000 });
    assert.ok(decodes.length > 0, 'the page decoded through the codec server');

    // What the UI does with TEMPORAL_CODEC_INCLUDE_CREDENTIALS (compose): from the UI's origin, a cookie-carrying
    // request to a token-protected codec server, once this browser opened /?token= there; before that, 401.
    const call = (url: string, body: string) =>
      page.evaluate(
        async ({ url, body }) => {
          const r = await fetch(`${url}/decode`, {
            method: 'POST',
            credentials: 'include',
            headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default' },
            body,
          });
          return { status: r.status, text: await r.text() };
        },
        { url, body },
      );
    assert.equal((await call(commandUrl, decodeBody())).status, 401);
    const tokenPage = await context.newPage();
    await tokenPage.goto(`${commandUrl}/?token=${token}`);
    assert.ok(!tokenPage.url().includes(token), 'the token leaves the address bar');
    await tokenPage.close();
    const withCookie = await call(commandUrl, decodeBody());
    assert.equal(withCookie.status, 200);
    assert.ok(decodedText(withCookie.text).includes(`hello ${name}`));
    await context.close();
  });

  it('never prints the token or the key: not dev, not the codec-server command', () => {
    for (const p of [dev, command]) {
      const out = p.output();
      assert.ok(!out.includes(token), 'no token in the output');
      assert.ok(!out.includes(keyMaterial), 'no key material in the output');
      assert.ok(!out.includes(name), 'no answer in the output');
    }
  });
});

/** The decoded payloads' data of a /decode answer, as text. */
function decodedText(body: string): string {
  const parsed = JSON.parse(body) as { payloads: Array<{ data: string }> };
  return parsed.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');
}
