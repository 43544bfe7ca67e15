import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_TIMEOUT_MS,
  envReferenceProblems,
  expandEnv,
  exposedToolName,
  loadMcpConfigFile,
  parseMcpConfig,
  sanitize,
  type HttpServerConfig,
  type StdioServerConfig,
} from '../../src/mcp/config.js';
import { isMcpSourceError, type McpSourceError } from '../../src/mcp/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-config-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function stdio(raw: unknown, name = 'fx'): StdioServerConfig {
  const server = parseMcpConfig(raw).servers[name];
  assert.equal(server.transport, 'stdio');
  return server as StdioServerConfig;
}

function http(raw: unknown, name = 'remote'): HttpServerConfig {
  const server = parseMcpConfig(raw).servers[name];
  assert.equal(server.transport, 'http');
  return server as HttpServerConfig;
}

/** Asserts parseMcpConfig throws an McpSourceError (McpConfigInvalid) whose message names the server and the field. */
function rejects(raw: unknown, server: string | undefined, field: string | undefined, extra?: RegExp): McpSourceError {
  let caught: unknown;
  try {
    parseMcpConfig(raw);
  } catch (err) {
    caught = err;
  }
  assert.ok(isMcpSourceError(caught, 'McpConfigInvalid'), `expected an McpSourceError (McpConfigInvalid), got ${String(caught)}`);
  if (server !== undefined) {
    assert.match(caught.message, new RegExp(`server "${server.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
    assert.equal(caught.server, server);
  }
  if (field !== undefined) {
    assert.match(caught.message, new RegExp(`field "${field}"`));
    assert.equal(caught.field, field);
  }
  if (extra) assert.match(caught.message, extra);
  return caught;
}

describe('parseMcpConfig: top-level keys', () => {
  for (const top of ['mcpServers', 'servers', 'mcp']) {
    it(`accepts the top key "${top}"`, () => {
      const config = parseMcpConfig({ [top]: { fx: { command: ['node', 'server.js'] } } });
      assert.deepEqual(Object.keys(config.servers), ['fx']);
      assert.equal(config.servers.fx.name, 'fx');
    });
  }

  it('accepts an empty server map', () => {
    assert.deepEqual(parseMcpConfig({ mcpServers: {} }).servers, {});
  });

  it('rejects a config with none of the known top keys, naming them', () => {
    rejects({ mcp_servers: { fx: { command: ['x'] } } }, undefined, undefined, /no "mcpServers", "servers" or "mcp" key/);
  });

  it('rejects two top keys at once, naming both', () => {
    rejects({ mcpServers: {}, servers: {} }, undefined, undefined, /not mcpServers and servers/);
  });

  it('rejects a config that is not an object', () => {
    for (const raw of [null, [], 'mcp.json', 3]) rejects(raw, undefined, undefined, /must be a JSON object/);
  });

  it('rejects a top key that is not an object', () => {
    const err = rejects({ mcpServers: [] }, undefined, undefined, /"mcpServers" must be an object/);
    assert.equal(err.field, 'mcpServers');
  });

  it('rejects a server that is not an object, naming the server', () => {
    for (const value of ['node server.js', null, ['node'], 1]) rejects({ mcpServers: { fx: value } }, 'fx', undefined, /must be an object/);
  });

  it('names the source in the message', () => {
    assert.throws(() => parseMcpConfig({ nope: 1 }, 'my-config.json'), /^McpSourceError: my-config\.json: /);
  });
});

describe('parseMcpConfig: notify', () => {
  it('sends no prompt unless `includePrompt` is true (the default leaves it out)', () => {
    assert.equal(parseMcpConfig({ mcpServers: {}, notify: { url: 'https://hooks.example.test/x' } }).notify?.includePrompt, undefined);
    assert.deepEqual(parseMcpConfig({ mcpServers: {}, notify: { url: 'https://hooks.example.test/x', includePrompt: true } }).notify, {
      url: 'https://hooks.example.test/x',
      includePrompt: true,
    });
    assert.equal(parseMcpConfig({ mcpServers: {}, notify: { url: 'https://hooks.example.test/x', includePrompt: false } }).notify?.includePrompt, false);
  });

  it('rejects an `includePrompt` that is not a boolean, naming the field; an unknown key lists includePrompt among the keys', () => {
    const err = rejects(
      { mcpServers: {}, notify: { url: 'https://x.test/', includePrompt: 'yes' } },
      undefined,
      'notify.includePrompt',
      /must be true or false, got "yes"/,
    );
    assert.equal(err.server, undefined);
    rejects(
      { mcpServers: {}, notify: { url: 'https://x.test/', includePrompts: true } },
      undefined,
      undefined,
      /unknown key\(s\) "includePrompts"; it takes url, headers, format, inboxUrl, includePrompt/,
    );
  });

  it("takes each assignee's own webhook (assigneeWebhooks), and names the field of a wrong one", () => {
    const ok = parseMcpConfig({
      mcpServers: {},
      notify: {
        url: 'https://x.test/',
        assigneeWebhooks: { 'ana@example.com': { url: 'https://ana.test/h', format: 'slack' }, 'role:ops': { url: 'https://ops.test/h' } },
      },
    });
    assert.equal(ok.notify?.assigneeWebhooks?.['role:ops']?.url, 'https://ops.test/h');
    rejects(
      { mcpServers: {}, notify: { url: 'https://x.test/', assigneeWebhooks: { 'ana@example.com': { url: 'ftp://ana.test/' } } } },
      undefined,
      'notify.assigneeWebhooks.ana@example.com.url',
      /must be an http or https URL/,
    );
    rejects(
      { mcpServers: {}, notify: { url: 'https://x.test/', assigneeWebhooks: { 'ana@example.com': { url: 'https://ana.test/', token: 'x' } } } },
      undefined,
      'notify.assigneeWebhooks.ana@example.com',
      /field "notify.assigneeWebhooks.ana@example.com" has unknown key\(s\) "token"; it takes url, headers, format/,
    );
  });
});

describe('parseMcpConfig: local (stdio) servers', () => {
  it('accepts command as an array: first is the program, the rest its args', () => {
    const s = stdio({ mcpServers: { fx: { command: ['node', 'server.js', '--flag'] } } });
    assert.equal(s.command, 'node');
    assert.deepEqual(s.args, ['server.js', '--flag']);
  });

  it('accepts command as a string with args', () => {
    const s = stdio({ mcpServers: { fx: { command: 'node', args: ['server.js', '-v'] } } });
    assert.equal(s.command, 'node');
    assert.deepEqual(s.args, ['server.js', '-v']);
  });

  it('accepts command as a string without args', () => {
    const s = stdio({ mcpServers: { fx: { command: 'my-server' } } });
    assert.equal(s.command, 'my-server');
    assert.deepEqual(s.args, []);
  });

  it('accepts env', () => {
    assert.deepEqual(stdio({ mcpServers: { fx: { command: ['x'], env: { A: '1' } } } }).env, { A: '1' });
  });

  it('accepts environment (opencode) as env', () => {
    assert.deepEqual(stdio({ mcp: { fx: { type: 'local', command: ['x'], environment: { B: '2' } } } }).env, { B: '2' });
  });

  it('accepts cwd', () => {
    assert.equal(stdio({ mcpServers: { fx: { command: ['x'], cwd: '/tmp' } } }).cwd, '/tmp');
  });

  it('defaults: enabled, timeout 30000 ms, every tool', () => {
    const s = stdio({ mcpServers: { fx: { command: ['x'] } } });
    assert.equal(s.enabled, true);
    assert.equal(DEFAULT_TIMEOUT_MS, 30_000);
    assert.equal(s.timeoutMs, 30_000);
    assert.equal(s.tools, undefined);
  });

  it('accepts a timeout in ms', () => {
    assert.equal(stdio({ mcpServers: { fx: { command: ['x'], timeout: 1500 } } }).timeoutMs, 1500);
  });

  it('rejects a timeout longer than Node timers can wait (2^31-1 ms), naming the field and the limit', () => {
    rejects({ mcpServers: { fx: { command: ['x'], timeout: 3e9 } } }, 'fx', 'timeout', /at most 2147483647 \(about 24.8 days\), got number 3000000000/);
  });

  it('accepts a tools allowlist', () => {
    assert.deepEqual(stdio({ mcpServers: { fx: { command: ['x'], tools: ['echo', 'ask_name'] } } }).tools, ['echo', 'ask_name']);
  });

  it('maps enabled:false to enabled false', () => {
    assert.equal(stdio({ mcpServers: { fx: { command: ['x'], enabled: false } } }).enabled, false);
  });

  it('maps disabled:true to enabled false', () => {
    assert.equal(stdio({ mcpServers: { fx: { command: ['x'], disabled: true } } }).enabled, false);
  });

  it('keeps enabled:true and disabled:false enabled', () => {
    assert.equal(stdio({ mcpServers: { fx: { command: ['x'], enabled: true, disabled: false } } }).enabled, true);
  });

  it('ignores keys it does not know inside a server (Claude/opencode extras)', () => {
    assert.equal(stdio({ mcpServers: { fx: { command: ['x'], description: 'd', autoApprove: [] } } }).command, 'x');
  });
});

describe('parseMcpConfig: remote (http) servers', () => {
  it('maps url to the http transport', () => {
    const s = http({ mcpServers: { remote: { url: 'https://example.test/mcp' } } });
    assert.equal(s.url, 'https://example.test/mcp');
    assert.equal(s.timeoutMs, 30_000);
    assert.equal(s.enabled, true);
  });

  it('accepts headers', () => {
    const s = http({ servers: { remote: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } } } });
    assert.deepEqual(s.headers, { Authorization: 'Bearer ${TOKEN}' });
  });

  it('accepts opencode "remote" servers with enabled:false', () => {
    const s = http({ mcp: { remote: { type: 'remote', url: 'https://example.test/mcp', enabled: false } } });
    assert.equal(s.enabled, false);
  });
});

describe('parseMcpConfig: errors name the server and the field', () => {
  it('rejects a command that is a number', () => {
    rejects({ mcpServers: { fx: { command: 42 } } }, 'fx', 'command', /non-empty array of strings.*got number 42/);
  });

  it('rejects a command that is an object or an array of non-strings', () => {
    rejects({ mcpServers: { fx: { command: { bin: 'x' } } } }, 'fx', 'command');
    rejects({ mcpServers: { fx: { command: ['node', 3] } } }, 'fx', 'command');
  });

  it('rejects an empty command', () => {
    rejects({ mcpServers: { fx: { command: [] } } }, 'fx', 'command');
    rejects({ mcpServers: { fx: { command: '' } } }, 'fx', 'command');
  });

  it('rejects args with an array command', () => {
    rejects({ mcpServers: { fx: { command: ['node'], args: ['x'] } } }, 'fx', 'args');
  });

  it('rejects an invalid url', () => {
    rejects({ mcpServers: { remote: { url: 'not a url' } } }, 'remote', 'url', /absolute URL/);
  });

  it('rejects a non-http url', () => {
    rejects({ mcpServers: { remote: { url: 'ftp://example.test/mcp' } } }, 'remote', 'url', /http or https/);
  });

  it('rejects both command and url', () => {
    rejects({ mcpServers: { both: { command: ['x'], url: 'https://example.test/mcp' } } }, 'both', 'url', /cannot be combined with "command"/);
  });

  it('rejects neither command nor url', () => {
    rejects({ mcpServers: { empty: { env: { A: '1' } } } }, 'empty', 'command', /or "url" is required/);
  });

  it('rejects a negative timeout', () => {
    rejects(
      { mcpServers: { fx: { command: ['x'], timeout: -1 } } },
      'fx',
      'timeout',
      /positive integer number of milliseconds, at most 2147483647 \(about 24.8 days\), got number -1/,
    );
  });

  it('rejects a zero, fractional or non-Duration timeout', () => {
    for (const timeout of [0, 1.5, '30 parsecs', '0s']) rejects({ mcpServers: { fx: { command: ['x'], timeout } } }, 'fx', 'timeout');
  });

  it('takes a Temporal Duration string as timeout', () => {
    assert.equal(parseMcpConfig({ mcpServers: { fx: { command: ['x'], timeout: '45s' } } }).servers.fx.timeoutMs, 45_000);
  });

  it('rejects a non-boolean enabled / disabled', () => {
    rejects({ mcpServers: { fx: { command: ['x'], enabled: 'no' } } }, 'fx', 'enabled');
    rejects({ mcpServers: { fx: { command: ['x'], disabled: 1 } } }, 'fx', 'disabled');
  });

  it('rejects a tools allowlist that is not an array of names', () => {
    rejects({ mcpServers: { fx: { command: ['x'], tools: 'echo' } } }, 'fx', 'tools');
  });

  it('rejects env values that are not strings', () => {
    rejects({ mcpServers: { fx: { command: ['x'], env: { PORT: 8080 } } } }, 'fx', 'env.PORT');
  });

  it('rejects both env and environment', () => {
    rejects({ mcpServers: { fx: { command: ['x'], env: {}, environment: {} } } }, 'fx', 'environment');
  });

  it('never shows a headers or env value in an error (it may hold a secret), only what kind of value is wrong', () => {
    const h = rejects(
      { servers: { remote: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: 'Authorization: Bearer ghp_abc123secret' } } },
      'remote',
      'headers',
      /not shown/,
    );
    assert.doesNotMatch(h.message, /ghp_abc123secret/);
    const e = rejects({ mcpServers: { fx: { command: ['x'], env: 'TOKEN=sk-live-secret' } } }, 'fx', 'env', /not shown/);
    assert.doesNotMatch(e.message, /sk-live-secret/);
    const n = rejects({ mcpServers: { fx: { command: ['x'], env: { PIN: 123456 } } } }, 'fx', 'env.PIN', /a number \(not shown/);
    assert.doesNotMatch(n.message, /123456/);
  });

  it('rejects headers on a local server and env on a remote one', () => {
    rejects({ mcpServers: { fx: { command: ['x'], headers: { A: 'b' } } } }, 'fx', 'headers');
    rejects({ mcpServers: { remote: { url: 'https://example.test/mcp', env: { A: 'b' } } } }, 'remote', 'env');
  });

  it('rejects a type that contradicts command or url', () => {
    rejects({ mcpServers: { fx: { type: 'http', command: ['x'] } } }, 'fx', 'type');
    rejects({ mcpServers: { remote: { type: 'stdio', url: 'https://example.test/mcp' } } }, 'remote', 'type');
  });

  it('names the failing server among several', () => {
    rejects({ mcpServers: { good: { command: ['x'] }, 'bad.one': { command: 7 } } }, 'bad.one', 'command');
  });
});

describe('expandEnv', () => {
  const where = { server: 'remote', field: 'headers.Authorization' };

  it('expands ${VAR} from the given environment', () => {
    assert.equal(expandEnv('Bearer ${TOKEN}', where, { TOKEN: 'abc' }), 'Bearer abc');
  });

  it('expands several variables and leaves text without ${} alone', () => {
    assert.equal(expandEnv('${A}-${B}-$C-{D}', where, { A: '1', B: '2' }), '1-2-$C-{D}');
  });

  it('expands to an empty string when the variable is set but empty', () => {
    assert.equal(expandEnv('x${E}y', where, { E: '' }), 'xy');
  });

  it('defaults to process.env', () => {
    process.env.DURABLE_MCP_TEST_VAR = 'from-process';
    try {
      assert.equal(expandEnv('${DURABLE_MCP_TEST_VAR}', where), 'from-process');
    } finally {
      delete process.env.DURABLE_MCP_TEST_VAR;
    }
  });

  it('errors on a missing variable naming the server, the field and the variable', () => {
    assert.throws(
      () => expandEnv('Bearer ${MISSING_TOKEN}', where, {}),
      (err: unknown) => {
        assert.ok(isMcpSourceError(err, 'McpServerUnavailable'));
        assert.match(err.message, /server "remote"/);
        assert.match(err.message, /field "headers\.Authorization"/);
        assert.match(err.message, /\$\{MISSING_TOKEN\}/);
        assert.equal(err.server, 'remote');
        assert.equal(err.field, 'headers.Authorization');
        assert.equal(err.variable, 'MISSING_TOKEN');
        return true;
      },
    );
  });

  it('never puts a header value in the error, not even the expanded part', () => {
    const secret = 'sk-very-secret-value';
    const headers = { Authorization: `Bearer ${secret}`, 'X-Api-Key': '${API_KEY}', 'X-Mixed': `${secret}-\${ALSO_MISSING}` };
    const messages: string[] = [];
    for (const [name, value] of Object.entries(headers)) {
      try {
        expandEnv(value, { server: 'remote', field: `headers.${name}` }, { TOKEN: secret });
      } catch (err) {
        messages.push((err as Error).message);
      }
    }
    assert.equal(messages.length, 2);
    for (const m of messages) assert.ok(!m.includes(secret), `secret leaked: ${m}`);
  });
});

describe('sanitize / exposedToolName', () => {
  it('replaces every character outside [a-zA-Z0-9_-] with "_"', () => {
    assert.equal(sanitize('my.server'), 'my_server');
    assert.equal(sanitize('do it'), 'do_it');
    assert.equal(sanitize('a/b:c@d'), 'a_b_c_d');
    assert.equal(sanitize('keep-these_AZaz09'), 'keep-these_AZaz09');
    assert.equal(sanitize('héllo'), 'h_llo');
  });

  it('joins sanitized server and tool with "_"', () => {
    assert.equal(exposedToolName('my.server', 'do it'), 'my_server_do_it');
    assert.equal(exposedToolName('fx', 'echo'), 'fx_echo');
    assert.equal(exposedToolName('gh-mcp', 'repos/list'), 'gh-mcp_repos_list');
  });
});

describe('loadMcpConfigFile', () => {
  it('loads and parses a JSON file', () => {
    const path = join(dir, 'ok.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { fx: { command: ['node', 'x.js'], timeout: 1000 } } }));
    const config = loadMcpConfigFile(path);
    assert.equal(config.servers.fx.timeoutMs, 1000);
  });

  it('errors for a missing file, naming the path', () => {
    const path = join(dir, 'does-not-exist.json');
    assert.throws(
      () => loadMcpConfigFile(path),
      (err: unknown) => {
        assert.ok(isMcpSourceError(err, 'McpConfigInvalid'));
        assert.ok(err.message.includes(path), err.message);
        assert.match(err.message, /ENOENT/);
        return true;
      },
    );
  });

  it('errors for invalid JSON, naming the path', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, '{ "mcpServers": { ');
    assert.throws(
      () => loadMcpConfigFile(path),
      (err: unknown) => {
        assert.ok(isMcpSourceError(err, 'McpConfigInvalid'));
        assert.ok(err.message.includes(path), err.message);
        assert.match(err.message, /not valid JSON/);
        return true;
      },
    );
  });

  it('names the path in a config error of a server', () => {
    const path = join(dir, 'bad-server.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { fx: { command: 1 } } }));
    assert.throws(
      () => loadMcpConfigFile(path),
      (err: unknown) => {
        assert.ok(isMcpSourceError(err, 'McpConfigInvalid'));
        assert.ok(err.message.includes(path), err.message);
        assert.match(err.message, /server "fx": field "command"/);
        return true;
      },
    );
  });
});

describe('parseMcpConfig: era and protocolVersion (docs/eras.md)', () => {
  it('defaults to era "auto" with no pinned version', () => {
    const s = stdio({ mcpServers: { fx: { command: ['x'] } } });
    assert.equal(s.era, 'auto');
    assert.equal(s.protocolVersion, undefined);
  });

  it('accepts era "auto", "legacy" and "modern", for local and remote servers', () => {
    for (const era of ['auto', 'legacy', 'modern'] as const) {
      assert.equal(stdio({ mcpServers: { fx: { command: ['x'], era } } }).era, era);
      assert.equal(http({ mcpServers: { remote: { url: 'https://example.test/mcp', era } } }).era, era);
    }
  });

  it('a pinned protocolVersion pins its era', () => {
    const legacy = stdio({ mcpServers: { fx: { command: ['x'], protocolVersion: '2025-06-18' } } });
    assert.deepEqual([legacy.era, legacy.protocolVersion], ['legacy', '2025-06-18']);
    const modern = stdio({ mcpServers: { fx: { command: ['x'], protocolVersion: '2026-07-28', era: 'modern' } } });
    assert.deepEqual([modern.era, modern.protocolVersion], ['modern', '2026-07-28']);
  });

  it('rejects an unknown era, naming the field and the choices', () => {
    rejects({ mcpServers: { fx: { command: ['x'], era: 'newest' } } }, 'fx', 'era', /field "era" must be "auto", "legacy" or "modern", got "newest"/);
  });

  it('rejects a protocolVersion the worker does not speak, listing those it does', () => {
    rejects(
      { mcpServers: { fx: { command: ['x'], protocolVersion: '2027-01-01' } } },
      'fx',
      'protocolVersion',
      /must be a protocol version the worker speaks: 2026-07-28, 2025-11-25, .*got "2027-01-01"/,
    );
    rejects({ mcpServers: { fx: { command: ['x'], protocolVersion: 20250618 } } }, 'fx', 'protocolVersion', /got number 20250618/);
  });

  it('rejects an era that contradicts the pinned protocolVersion', () => {
    rejects(
      { mcpServers: { fx: { command: ['x'], era: 'modern', protocolVersion: '2025-11-25' } } },
      'fx',
      'era',
      /field "era" is "modern" but "protocolVersion" "2025-11-25" is of the legacy era/,
    );
    rejects({ mcpServers: { fx: { command: ['x'], era: 'auto', protocolVersion: '2026-07-28' } } }, 'fx', 'era', /is of the modern era/);
  });
});

describe('"auth" of a remote server (OAuth)', () => {
  const parse = (auth: unknown, extra: Record<string, unknown> = {}) =>
    parseMcpConfig({ mcpServers: { crm: { url: 'https://crm.example/mcp', auth, ...extra } } });
  const fails = (auth: unknown, field: string, pattern: RegExp, extra: Record<string, unknown> = {}) =>
    assert.throws(
      () => parse(auth, extra),
      (err: unknown) => isMcpSourceError(err, 'McpConfigInvalid') && err.field === field && pattern.test(err.message),
    );

  it('takes "oauth" and every documented key', () => {
    assert.deepEqual((parse('oauth').servers.crm as HttpServerConfig).auth, { principal: 'shared' });
    const auth = (
      parse({
        scopes: 'read write',
        clientId: 'app',
        clientSecret: '${CRM_SECRET}',
        clientMetadataUrl: 'https://app.example/client.json',
        principal: 'per-call',
        redirectUrl: 'http://127.0.0.1:8787/oauth/callback',
      }).servers.crm as HttpServerConfig
    ).auth;
    assert.deepEqual(auth, {
      principal: 'per-call',
      scopes: ['read', 'write'],
      clientId: 'app',
      clientSecret: '${CRM_SECRET}',
      clientMetadataUrl: 'https://app.example/client.json',
      redirectUrl: 'http://127.0.0.1:8787/oauth/callback',
    });
  });

  it('refuses a bad value naming the field (and never shows a secret)', () => {
    fails('basic', 'auth', /must be "oauth" or an object/);
    fails({ scope: ['x'] }, 'auth.scope', /not a known key/);
    fails({ scopes: [] }, 'auth.scopes', /non-empty array of scope names/);
    fails({ principal: 'everyone' }, 'auth.principal', /"shared" or "per-call", got "everyone"/);
    fails({ clientSecret: 'hunter2' }, 'auth.clientSecret', /needs "clientId"/);
    fails({ clientId: 'a', clientSecret: 7 }, 'auth.clientSecret', /not shown: it may hold a secret/);
    fails({ clientMetadataUrl: 'http://app.example/c.json' }, 'auth.clientMetadataUrl', /must be an https URL/);
    fails({ clientMetadataUrl: 'https://app.example/' }, 'auth.clientMetadataUrl', /must have a path/);
    fails({ redirectUrl: 'http://inbox.example/oauth/callback' }, 'auth.redirectUrl', /http only for a loopback host/);
    fails('oauth', 'headers.Authorization', /cannot be combined with "auth"/, { headers: { Authorization: 'Bearer x' } });
    assert.throws(
      () => parseMcpConfig({ mcpServers: { local: { command: ['srv'], auth: 'oauth' } } }),
      (err: unknown) => isMcpSourceError(err, 'McpConfigInvalid') && err.field === 'auth' && /only applies to remote/.test(err.message),
    );
  });

  it('says at start that a clientSecret ${VAR} is not set', () => {
    const config = parse({ clientId: 'app', clientSecret: '${DURABLE_MCP_TEST_UNSET_SECRET}' });
    assert.deepEqual(envReferenceProblems(config, {}), [
      'server "crm": field "auth.clientSecret" refers to ${DURABLE_MCP_TEST_UNSET_SECRET}, which is not set in the environment',
    ]);
  });

  it('takes a machine login (client_credentials) with a secret or a private key', () => {
    const auth = (a: unknown) => (parse(a).servers.crm as HttpServerConfig).auth;
    assert.deepEqual(auth({ grant: 'client_credentials', clientId: 'm', clientSecret: '${M_SECRET}' }), {
      principal: 'shared',
      clientId: 'm',
      clientSecret: '${M_SECRET}',
      grant: 'client_credentials',
    });
    assert.deepEqual(
      auth({ grant: 'client_credentials', clientId: 'm', privateKey: '${M_KEY}', algorithm: 'ES256', issuer: 'https://auth.example', scopes: ['a'] }),
      {
        principal: 'shared',
        scopes: ['a'],
        clientId: 'm',
        grant: 'client_credentials',
        privateKey: '${M_KEY}',
        algorithm: 'ES256',
        issuer: 'https://auth.example',
      },
    );
    assert.deepEqual(auth({ grant: 'authorization_code' }), { principal: 'shared' });
    const config = parse({ grant: 'client_credentials', clientId: 'm', privateKey: '${DURABLE_MCP_TEST_UNSET_KEY}', algorithm: 'RS256' });
    assert.deepEqual(envReferenceProblems(config, {}), [
      'server "crm": field "auth.privateKey" refers to ${DURABLE_MCP_TEST_UNSET_KEY}, which is not set in the environment',
    ]);
  });

  it('refuses a machine login that is not complete or asks for a person', () => {
    const cc = { grant: 'client_credentials', clientId: 'm' };
    fails({ grant: 'password' }, 'auth.grant', /"authorization_code" .* or "client_credentials" .*, got "password"/);
    fails({ grant: 'client_credentials', clientSecret: 's' }, 'auth.clientSecret', /needs "clientId"/);
    fails({ grant: 'client_credentials' }, 'auth.clientId', /is needed with "grant": "client_credentials"/);
    fails(cc, 'auth', /needs "clientSecret" \(client_secret_basic\) or "privateKey" and "algorithm"/);
    fails({ ...cc, privateKey: 'k' }, 'auth.algorithm', /one of RS256, .*ES256.*, got nothing/);
    fails({ ...cc, privateKey: 'k', algorithm: 'HS256' }, 'auth.algorithm', /got "HS256"/);
    fails({ ...cc, privateKey: 7, algorithm: 'ES256' }, 'auth.privateKey', /not shown: it may hold a secret/);
    fails({ ...cc, clientSecret: 's', privateKey: 'k', algorithm: 'ES256' }, 'auth.privateKey', /cannot be combined with "clientSecret"/);
    fails({ ...cc, clientSecret: 's', algorithm: 'ES256' }, 'auth.algorithm', /needs "privateKey"/);
    fails({ ...cc, clientSecret: 's', redirectUrl: 'https://inbox.example/oauth/callback' }, 'auth.redirectUrl', /no browser comes back/);
    fails({ ...cc, clientSecret: 's', principal: 'per-call' }, 'auth.principal', /must be "shared" with "grant": "client_credentials"/);
    fails({ ...cc, clientSecret: 's', issuer: 'http://auth.example' }, 'auth.issuer', /http only for a loopback host/);
    fails({ clientId: 'a', privateKey: 'k' }, 'auth.privateKey', /needs "grant": "client_credentials"/);
  });

  it('takes "issuer" for every grant, and the outbound options (allowPrivateNetwork, resourceMetadataOrigin)', () => {
    const auth = (a: unknown, url = 'https://crm.example/mcp') =>
      (parseMcpConfig({ mcpServers: { crm: { url, auth: a } } }).servers.crm as HttpServerConfig).auth;
    assert.deepEqual(auth({ clientId: 'app', clientSecret: '${S}', issuer: 'https://auth.example' }), {
      principal: 'shared',
      clientId: 'app',
      clientSecret: '${S}',
      issuer: 'https://auth.example',
    });
    assert.deepEqual(auth({ allowPrivateNetwork: true, resourceMetadataOrigin: 'https://meta.example' }), {
      principal: 'shared',
      allowPrivateNetwork: true,
      resourceMetadataOrigin: 'https://meta.example',
    });
    assert.deepEqual(auth({ allowPrivateNetwork: false }), { principal: 'shared' });
    // Plain http to loopback stays allowed (development, the tests' oidc-provider).
    assert.deepEqual(auth('oauth', 'http://127.0.0.1:3000/mcp'), { principal: 'shared' });
    assert.deepEqual(auth('oauth', 'http://localhost:3000/mcp'), { principal: 'shared' });
    assert.deepEqual(auth('oauth', 'http://[::1]:3000/mcp'), { principal: 'shared' });
  });

  it('refuses nonsense outbound options and plain http to a non-loopback host, naming the server and the field', () => {
    fails({ allowPrivateNetwork: 'yes' }, 'auth.allowPrivateNetwork', /must be true .* or false, got "yes"/);
    fails({ allowPrivateNetwork: 1 }, 'auth.allowPrivateNetwork', /got number 1/);
    fails({ resourceMetadataOrigin: 'https://meta.example/path' }, 'auth.resourceMetadataOrigin', /must be an origin/);
    fails({ resourceMetadataOrigin: 'http://meta.example' }, 'auth.resourceMetadataOrigin', /http only for a loopback host/);
    fails({ issuer: 'http://auth.example' }, 'auth.issuer', /http only for a loopback host/);
    for (const url of ['http://crm.example/mcp', 'http://10.0.0.5/mcp', 'http://169.254.169.254/mcp']) {
      assert.throws(
        () => parseMcpConfig({ mcpServers: { crm: { url, auth: 'oauth' } } }),
        (err: unknown) =>
          isMcpSourceError(err, 'McpConfigInvalid') &&
          err.field === 'url' &&
          /server "crm"/.test(err.message) &&
          /plain http to .*needs https/.test(err.message),
        url,
      );
    }
    // Without "auth" plain http stays the operator's choice.
    assert.equal((parseMcpConfig({ mcpServers: { crm: { url: 'http://crm.example/mcp' } } }).servers.crm as HttpServerConfig).url, 'http://crm.example/mcp');
  });
});

describe('parseMcpConfig: approval (docs/approvals.md)', () => {
  const fx = { command: ['node', 'x.js'] };
  it('takes a policy per server and a worker-wide default for servers without their own; default: none (never)', () => {
    assert.equal(parseMcpConfig({ mcpServers: { fx } }).servers.fx.approval, undefined);
    const config = parseMcpConfig({
      approval: 'destructive',
      mcpServers: { fx, own: { ...fx, approval: { tools: ['delete_*'], except: ['delete_draft'], annotations: 'trust', expiresIn: '1h' } } },
    });
    assert.deepEqual(config.approval, { gate: 'destructive', annotations: 'ignore' });
    assert.deepEqual(config.servers.fx.approval, { gate: 'destructive', annotations: 'ignore' });
    assert.deepEqual(config.servers.own.approval, {
      gate: 'destructive',
      tools: ['delete_*'],
      except: ['delete_draft'],
      annotations: 'trust',
      expiresInMs: 3_600_000,
    });
    assert.deepEqual(parseMcpConfig({ approval: 'always', mcpServers: { fx: { ...fx, approval: 'never' } } }).servers.fx.approval, {
      gate: 'never',
      annotations: 'ignore',
    });
  });

  it('refuses a bad policy at load, naming the server and the field', () => {
    rejects(
      { mcpServers: { fx: { ...fx, approval: 'sometimes' } } },
      'fx',
      'approval',
      /must be "always", "never", "destructive" or an object.*got "sometimes"/,
    );
    rejects({ mcpServers: { fx: { ...fx, approval: { annotations: 'yes' } } } }, 'fx', 'approval.annotations', /must be "trust" or "ignore", got "yes"/);
    rejects({ mcpServers: { fx: { ...fx, approval: { tools: 'delete_*' } } } }, 'fx', 'approval.tools', /must be an array of tool names or globs/);
    rejects({ mcpServers: { fx: { ...fx, approval: { except: [''] } } } }, 'fx', 'approval.except');
    rejects({ mcpServers: { fx: { ...fx, approval: { expiresIn: '4 parsecs' } } } }, 'fx', 'approval.expiresIn', /must be a Duration/);
    rejects({ mcpServers: { fx: { ...fx, approval: { expiresIn: 0 } } } }, 'fx', 'approval.expiresIn');
    rejects(
      { mcpServers: { fx: { ...fx, approval: { gate: 'always' } } } },
      'fx',
      'approval.gate',
      /not a field of an approval policy; it takes tools, except, annotations, expiresIn/,
    );
    const top = rejects({ approval: true, mcpServers: { fx } }, undefined, 'approval', /got true/);
    assert.equal(top.server, undefined);
  });
});
