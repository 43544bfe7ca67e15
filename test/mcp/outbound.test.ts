/**
 * The OAuth flow's fetch (src/mcp/auth/outbound.ts): which addresses it refuses (no server needed), and with real
 * listeners on loopback: a refused URL gets no request (after name resolution too, and on a redirect), an allowed one
 * is fetched over a connection to the address that was checked; and the SDK's `auth()` through it (authorizeLogin): a
 * failed request is named by host and status, never by the body the server wrote.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { authorizeLogin, type LoginTarget } from '../../src/mcp/auth/flow.js';
import { addressProblem, isLoopbackHost, OutboundGuard, OutboundRefused, resourceMetadataProblem } from '../../src/mcp/auth/outbound.js';
import { parseMcpConfig } from '../../src/mcp/config.js';
import { isMcpSourceError } from '../../src/mcp/errors.js';

describe('addressProblem: the addresses the OAuth flow does not fetch from', () => {
  it('refuses loopback, private, link-local, unique-local, cloud-metadata and reserved addresses, in both families', () => {
    const refused: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['127.0.0.2', /loopback/],
      ['::1', /loopback/],
      ['10.1.2.3', /private/],
      ['172.16.0.1', /private/],
      ['172.31.255.255', /private/],
      ['192.168.1.1', /private/],
      ['169.254.169.254', /cloud-metadata/],
      ['169.254.10.1', /link-local/],
      ['fd00:ec2::254', /cloud-metadata/],
      ['100.100.100.200', /cloud-metadata/],
      ['100.64.0.1', /shared/],
      ['fe80::1', /link-local/],
      ['fc00::1', /unique-local/],
      ['fd12:3456::1', /unique-local/],
      ['0.0.0.0', /this network/],
      ['::', /unspecified/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /reserved/],
      // IPv4 in IPv6 is judged as the IPv4 address it carries.
      ['::ffff:127.0.0.1', /loopback/],
      ['::ffff:7f00:1', /loopback/],
      ['::ffff:169.254.169.254', /cloud-metadata/],
      ['64:ff9b::a9fe:a9fe', /cloud-metadata/],
      ['::ffff:10.0.0.1', /private/],
    ];
    for (const [ip, kind] of refused) assert.match(addressProblem(ip) ?? 'allowed', kind, ip);
  });

  it('judges every IPv6 form that carries an IPv4 address as the IPv4 inside (issue 40: 6to4, NAT64, IPv4-translated, Teredo)', () => {
    const refused: [string, RegExp][] = [
      // The review's three: 6to4 of 127.0.0.1, local-use NAT64 (RFC 8215) of 169.254.169.254, IPv4-translated 127.0.0.1.
      ['2002:7f00:1::', /loopback \(IPv4 127\.0\.0\.1 inside IPv6\)/],
      ['64:ff9b:1::a9fe:a9fe', /cloud-metadata/],
      ['::ffff:0:7f00:1', /loopback/],
      ['::ffff:0:10.0.0.1', /private/],
      ['2002:a9fe:a9fe::1', /cloud-metadata/],
      ['2002:c0a8:0101:1::5', /private/],
      ['64:ff9b::7f00:1', /loopback/],
      // Teredo: the server's IPv4 in bits 32-63, the client's XORed in the last 32 bits.
      ['2001:0:a00:1::1', /private/],
      ['2001:0:808:808:0:f227:80ff:fffe', /loopback/],
      // The local-use NAT64 prefix never leaves the operator's network, whatever it carries.
      ['64:ff9b:1::808:808', /local-use NAT64/],
    ];
    for (const [ip, kind] of refused) assert.match(addressProblem(ip) ?? 'allowed', kind, ip);
    for (const ip of ['2002:808:808::1', '64:ff9b::808:808', '::ffff:0:8.8.8.8', '2001:0:808:808:0:f227:f7f7:f7f7']) {
      assert.equal(addressProblem(ip), undefined, ip);
    }
  });

  it('allows public addresses', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888']) {
      assert.equal(addressProblem(ip), undefined, ip);
    }
  });

  it('knows loopback host names (where plain http is allowed)', () => {
    for (const h of ['localhost', '127.0.0.1', '127.9.9.9', '[::1]', 'app.localhost']) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['example.com', '10.0.0.1', '[fe80::1]', 'localhost.example.com']) assert.equal(isLoopbackHost(h), false, h);
  });
});

describe("resourceMetadataProblem: protected-resource metadata only from the server's origin, or its config's", () => {
  const server = { name: 'crm', url: 'https://crm.example/mcp', auth: {} };
  it("allows the server's own origin and the configured one, refuses any other naming both", () => {
    assert.equal(resourceMetadataProblem(server, 'https://crm.example/.well-known/oauth-protected-resource/mcp'), undefined);
    assert.equal(resourceMetadataProblem({ ...server, auth: { resourceMetadataOrigin: 'https://meta.example' } }, 'https://meta.example/x'), undefined);
    const problem = resourceMetadataProblem(server, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/role');
    assert.match(problem ?? '', /server "crm".*http:\/\/169\.254\.169\.254, which is not the server's origin \(https:\/\/crm\.example\)/);
    assert.match(resourceMetadataProblem(server, 'https://crm.example:8443/x') ?? '', /not the server's origin/);
    assert.match(resourceMetadataProblem(server, 'not a url') ?? '', /not a URL/);
  });
});

describe('OutboundGuard: the fetch of the OAuth flow', () => {
  const seen: IncomingMessage[] = [];
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      if (req.url === '/redirect-out') res.writeHead(302, { location: 'http://metadata.internal.example/latest/meta-data/' }).end();
      else if (req.url === '/redirect-in') res.writeHead(302, { location: `http://127.0.0.1:${port}/doc` }).end();
      else if (req.url === '/fail') res.writeHead(500, { 'content-type': 'text/plain' }).end('db password=hunter2');
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ host: req.headers.host, method: req.method }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const guard = (allowPrivateNetwork: boolean, resolve?: (host: string) => Promise<{ address: string; family: number }[]>) =>
    new OutboundGuard({ server: 'crm', allowPrivateNetwork, ...(resolve ? { resolve } : {}) });

  it('refuses a loopback address, by literal or after name resolution, and sends nothing', async () => {
    const before = seen.length;
    for (const url of [`http://127.0.0.1:${port}/latest/meta-data/`, `http://localhost:${port}/latest/meta-data/`]) {
      const g = guard(false);
      await assert.rejects(g.fetch(url), (err: unknown) => err instanceof OutboundRefused && /loopback address/.test((err as Error).message));
      assert.match(g.refused ?? '', /server "crm": OAuth: refused to fetch http:\/\/(127\.0\.0\.1|localhost):\d+: .*loopback.*"auth\.allowPrivateNetwork"/);
    }
    // A public-looking name whose DNS answer is private: every address of the answer is checked.
    const g = guard(false, async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ]);
    await assert.rejects(g.fetch('https://rebind.example/x'), /rebind\.example resolves to 10\.0\.0\.7, a private address/);
    assert.equal(seen.length, before, 'no request reached the listener');
  });

  it('refuses plain http to a host that is not loopback, and other schemes, whatever allowPrivateNetwork says', async () => {
    await assert.rejects(guard(true).fetch('http://auth.example/token'), /plain http to a host that is not loopback/);
    await assert.rejects(guard(true).fetch('file:///etc/passwd'), /the scheme file: is not https/);
  });

  it('follows a redirect only after checking its target, one hop at a time', async () => {
    const before = seen.length;
    const g = guard(true);
    await assert.rejects(g.fetch(`http://127.0.0.1:${port}/redirect-out`), /refused to fetch http:\/\/metadata\.internal\.example: plain http/);
    assert.equal(seen.length, before + 1, 'only the first hop was sent');
    const ok = await guard(true).fetch(`http://127.0.0.1:${port}/redirect-in`);
    assert.equal(ok.status, 200);
    // `redirect: "manual"` (the SDK follows redirects itself, through this fetch again): the 302 comes back as it is.
    assert.equal((await guard(true).fetch(`http://127.0.0.1:${port}/redirect-in`, { redirect: 'manual' })).status, 302);
  });

  it('refuses a redirect over https to a name that resolves to a private or cloud-metadata address: exactly one request sent', async () => {
    const resolve = async (host: string) => {
      const table: Record<string, string> = { 'auth.example': '93.184.216.34', 'intranet.example': '10.1.2.3', 'metadata.example': '169.254.169.254' };
      if (!table[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return [{ address: table[host], family: 4 }];
    };
    for (const [target, why] of [
      ['https://intranet.example/admin', /intranet\.example resolves to 10\.1\.2\.3, a private address/],
      ['https://metadata.example/latest/meta-data/iam/security-credentials/role', /metadata\.example resolves to 169\.254\.169\.254, a cloud-metadata address/],
      ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud-metadata address/],
    ] as const) {
      // The public authorization server (its answers observed through `base`, which gets only checked URLs) redirects inside.
      const sent: string[] = [];
      const base = async (url: string | URL) => {
        sent.push(String(url));
        return new Response(null, { status: 302, headers: { location: target } });
      };
      const g = new OutboundGuard({ server: 'crm', allowPrivateNetwork: false, resolve, base });
      await assert.rejects(g.fetch('https://auth.example/.well-known/oauth-authorization-server'), (err: unknown) => {
        assert.ok(err instanceof OutboundRefused, String(err));
        assert.match(err.message, why);
        return true;
      });
      assert.deepEqual(sent, ['https://auth.example/.well-known/oauth-authorization-server'], `exactly one request sent (${target})`);
      assert.match(g.refused ?? '', /server "crm": OAuth: refused to fetch https:\/\//);
    }
  });

  it('connects to the address it checked (the name is not resolved again), and remembers a failure by host and status', async () => {
    const g = guard(true, async () => [{ address: '127.0.0.1', family: 4 }]);
    const res = await g.fetch(`http://pinned.localhost:${port}/doc`, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
    assert.deepEqual(await res.json(), { host: `pinned.localhost:${port}`, method: 'POST' });
    const failed = await g.fetch(`http://127.0.0.1:${port}/fail`);
    assert.equal(failed.status, 500);
    assert.deepEqual(g.failure, { host: `127.0.0.1:${port}`, status: 500, method: 'GET' });
  });
});

describe('authorizeLogin: a failed outside request is named by host and status, never by its body', () => {
  let server: Server;
  let origin = '';
  before(async () => {
    // One origin as MCP server (its metadata), authorization server (its metadata) and a registration endpoint that fails.
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      res.setHeader('content-type', 'application/json');
      if (path?.startsWith('/.well-known/oauth-protected-resource')) res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [origin] }));
      else if (path === '/.well-known/oauth-authorization-server')
        res.end(
          JSON.stringify({
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ['code'],
            code_challenge_methods_supported: ['S256'],
          }),
        );
      else if (path === '/register') res.writeHead(400).end('{"error":"invalid_client_metadata","error_description":"db password=hunter2"}');
      else res.writeHead(404).end('db password=hunter2');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  /** A login of server "crm" at the test's origin, with `auth` as configured. */
  const target = (auth: unknown): LoginTarget => ({
    server: parseMcpConfig({ mcpServers: { crm: { url: `${origin}/mcp`, auth } } }).servers.crm as LoginTarget['server'],
    loginId: 'login-crm',
    redirectUrl: 'http://127.0.0.1:8787/oauth/callback',
  });

  it('a refused registration: AuthorizationFailed, permanent, with the host and the status only', async () => {
    await assert.rejects(authorizeLogin(target({ allowPrivateNetwork: true }), {}), (err: unknown) => {
      assert.ok(isMcpSourceError(err, 'AuthorizationFailed'));
      assert.equal(err.permanent, true);
      assert.match(err.message, new RegExp(`server "crm": OAuth: the client registration was refused \\(127\\.0\\.0\\.1:\\d+ answered HTTP 400 to a POST\\)`));
      assert.doesNotMatch(err.message, /hunter2|invalid_client_metadata/);
      return true;
    });
  });

  it('without allowPrivateNetwork, the same server on loopback is not fetched at all', async () => {
    await assert.rejects(authorizeLogin(target('oauth'), {}), (err: unknown) => {
      assert.ok(isMcpSourceError(err, 'AuthorizationFailed'));
      assert.equal(err.permanent, true);
      assert.match(err.message, /refused to fetch http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/);
      return true;
    });
  });
});
