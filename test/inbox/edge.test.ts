/**
 * The inbox and the codec server at their edge (docs/security.md "The inbox and the codec server"), over real HTTP: a
 * real dev server behind the inbox, a TLS-terminating proxy in front of it (test/helpers/tls-proxy.ts) as a deployment
 * has, and the codec server with a real key. No redirect leaves the origin; the session cookie is Secure behind an https
 * public URL, scoped to its path, and is not the token; notices come from a fixed list; bodies are bounded (413); live
 * streams are capped per client (429).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { startCodecServer, type CodecServerHandle } from '../../src/codec/server.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { eventually, suiteEnvironment } from '../helpers/temporal.js';
import { selfSignedCert, startTlsProxy, type TlsProxy } from '../helpers/tls-proxy.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request exactly as given (its path not normalized, any header), over http or https trusting `ca`. */
function send(url: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string; ca?: string } = {}): Promise<Answer> {
  const u = new URL(url);
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)({
    host: u.hostname,
    port: u.port,
    path,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    agent: false,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', (err) => reject(new Error(`${options.method ?? 'GET'} ${url} ${path}: ${err.message}`)));
    req.end(options.body);
  });
}
const setCookie = (a: Answer): string => (a.headers['set-cookie'] as string[] | undefined)?.[0] ?? '';

describe('the inbox and the codec server at the edge', () => {
  const suite = suiteEnvironment({ name: 'edge', searchAttributes: true });
  const token = `tok-${randomBytes(24).toString('hex')}`;
  const tls = selfSignedCert();
  let proxy: TlsProxy;
  let inbox: InboxHandle;
  let codecServer: CodecServerHandle;
  let inboxOrigin = 'http://127.0.0.1:1';

  before(async () => {
    proxy = await startTlsProxy(tls, () => inboxOrigin);
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, token, publicUrl: proxy.url, maxEventStreamsPerClient: 2 });
    inboxOrigin = inbox.url;
    codecServer = await startCodecServer({
      codec: new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('k1'), 'test')),
      port: 0,
      token,
      publicUrl: 'https://codec.example.com/temporal/',
      maxBodyBytes: 64 * 1024,
    });
  });
  after(async () => {
    await codecServer?.close();
    await inbox?.close();
    await proxy?.close();
  });

  it('never redirects to another origin: //host and ///host become paths of this origin (inbox and codec server)', async () => {
    for (const base of [inbox.url, codecServer.url]) {
      for (const path of [`//evil.example/x?token=${token}`, `///evil.example/x?token=${token}`, `/%2F%2Fevil.example?token=${token}`]) {
        const a = await send(base, path);
        assert.equal(a.status, 303, `${base} ${path}`);
        const location = String(a.headers.location);
        assert.match(location, /^\/[^/\\]/, `${base} ${path} → ${location}`);
        assert.equal(new URL(location, base).origin, new URL(base).origin, `${base} ${path} → ${location}`);
        assert.ok(!location.includes(token), 'the token leaves the address');
      }
    }
  });

  it('behind an https public URL the session cookie is Secure, HttpOnly, SameSite=Strict, scoped to the path, and not the token', async () => {
    const traded = await send(proxy.url, `/?token=${token}`, { ca: tls.cert });
    assert.equal(traded.status, 303);
    assert.equal(traded.headers.location, '/');
    const cookie = setCookie(traded);
    const attrs = cookie.split(';').map((s) => s.trim());
    assert.ok(attrs.includes('Secure'), cookie);
    assert.ok(attrs.includes('HttpOnly'), cookie);
    assert.ok(attrs.includes('SameSite=Strict'), cookie);
    assert.ok(attrs.includes('Path=/'), cookie);
    const [name, value] = attrs[0]!.split('=');
    assert.ok(value && value !== token && !cookie.includes(token), 'the cookie holds a session value, not the token');
    // The session value lets the browser in (through the proxy); the value is no token for the API.
    assert.equal((await send(proxy.url, '/api/requests', { ca: tls.cert, headers: { cookie: `${name}=${value}` } })).status, 200);
    assert.equal((await send(inbox.url, '/api/requests', { headers: { authorization: `Bearer ${value}` } })).status, 401);
    // The codec server's public URL has a path: its cookie is scoped to it.
    const codecCookie = setCookie(await send(codecServer.url, `/?token=${token}`));
    assert.match(codecCookie, /; Path=\/temporal\/(;|$)/);
    assert.match(codecCookie, /; Secure(;|$)/);
    assert.ok(!codecCookie.includes(token));
    const [cname, cvalue] = codecCookie.split(';')[0]!.split('=');
    const decoded = await send(codecServer.url, '/decode', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `${cname}=${cvalue}` },
      body: '{"payloads":[]}',
    });
    assert.equal(decoded.status, 200, decoded.body);
  });

  it('shows notices from a fixed list: the query picks one, nothing of it is shown', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const injected = encodeURIComponent('Your session expired, call +1-555-0100');
    const page = await send(inbox.url, `/?answered=${injected}&action=${injected}`, { headers: auth });
    assert.equal(page.status, 200);
    assert.match(page.body, /<p class="notice" role="status">Your answer was sent\.<\/p>/);
    assert.doesNotMatch(page.body, /555-0100|session expired/);
    const declined = await send(inbox.url, '/?answered=1&action=decline', { headers: auth });
    assert.match(declined.body, /<p class="notice" role="status">The request was declined \(decline\)\.<\/p>/);
  });

  it('refuses a POST body over the limit with 413 (inbox forms and API, codec server), before reading it all', async () => {
    const auth = { authorization: `Bearer ${token}`, origin: new URL(inbox.url).origin };
    const big = 'x'.repeat(300 * 1024);
    const api = await send(inbox.url, '/api/answer', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ workflowId: 'w', answer: { id: 'r', ok: true, data: { v: big } } }),
    });
    assert.equal(api.status, 413, api.body);
    const form = await send(inbox.url, '/answer?workflow=w&request=r', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: `__action=accept&v=${big}`,
    });
    assert.equal(form.status, 413, form.body);
    const codec = await send(codecServer.url, '/decode', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [{ metadata: {}, data: Buffer.from(big).toString('base64') }] }),
    });
    assert.equal(codec.status, 413, codec.body);
  });

  it('caps the live-update streams of one client (429 beyond), and a closed one frees its place', async () => {
    const open = async () => {
      const ac = new AbortController();
      const res = await fetch(new URL('/events', inbox.url), { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
      return { res, close: () => ac.abort() };
    };
    const first = await open();
    const second = await open();
    try {
      assert.equal(first.res.status, 200);
      assert.equal(second.res.status, 200);
      const third = await open();
      assert.equal(third.res.status, 429);
      assert.match(await third.res.text(), /too many live-update streams from this address \(at most 2\)/);
      first.close();
      const again = await eventually(async () => {
        const s = await open();
        if (s.res.status === 200) return s;
        await s.res.text();
        return undefined;
      }, 'a stream once one closed');
      again.close();
    } finally {
      first.close();
      second.close();
    }
  });
});
