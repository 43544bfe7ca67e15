import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envReferenceProblems, parseMcpConfig } from '../src/mcp/index.js';
import { mallocArenaHint, mcpConfigPathFrom } from '../src/cli/worker-command.js';
import { createWorker, DEFAULT_MAX_CACHED_WORKFLOWS, defaultRedirectUrl, OAuthEncryptionRequiredError, zeroCacheWarning } from '../src/worker.js';

describe('worker process settings', () => {
  it('warns when the workflow cache is off (Core then drops concurrent queries), and only then', () => {
    assert.match(zeroCacheWarning(0) ?? '', /maxCachedWorkflows is 0 .*drops queries.*`pending` and the inbox can time out/);
    assert.equal(zeroCacheWarning(DEFAULT_MAX_CACHED_WORKFLOWS), undefined);
    assert.equal(zeroCacheWarning(1), undefined);
    assert.equal(zeroCacheWarning(undefined), undefined);
  });

  it('advises MALLOC_ARENA_MAX=2 on Linux when it is unset, and says nothing otherwise', () => {
    assert.match(mallocArenaHint({}, 'linux') ?? '', /MALLOC_ARENA_MAX is not set.*MALLOC_ARENA_MAX=2/);
    assert.equal(mallocArenaHint({ MALLOC_ARENA_MAX: '2' }, 'linux'), undefined);
    assert.equal(mallocArenaHint({}, 'darwin'), undefined);
  });

  it('lists each unset ${VAR} of an enabled server, naming the server, the field and the variable', () => {
    const config = parseMcpConfig({
      mcpServers: {
        gh: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${DURABLE_MCP_TEST_UNSET_TOKEN}', 'X-Set': '${HOME}' } },
        off: { command: ['x'], env: { T: '${DURABLE_MCP_TEST_UNSET_TOKEN}' }, enabled: false },
      },
    });
    assert.deepEqual(envReferenceProblems(config, { HOME: '/root' }), [
      'server "gh": field "headers.Authorization" refers to ${DURABLE_MCP_TEST_UNSET_TOKEN}, which is not set in the environment',
    ]);
  });

  it('finds the MCP config in --mcp-config, then MCP_CONFIG, then mcp.json', () => {
    assert.match(mcpConfigPathFrom(['--mcp-config', '/etc/a.json'], {}), /\/etc\/a\.json$/);
    assert.match(mcpConfigPathFrom(['--mcp-config=/etc/b.json'], {}), /\/etc\/b\.json$/);
    assert.match(mcpConfigPathFrom([], { MCP_CONFIG: '/etc/c.json' }), /\/etc\/c\.json$/);
    assert.match(mcpConfigPathFrom([], {}), /\/mcp\.json$/);
  });
});

describe('a worker with servers behind OAuth', () => {
  it('refuses to start without a key to seal their credentials, before it connects, naming the servers and the variable', async () => {
    await assert.rejects(
      createWorker({ mcpConfig: { mcpServers: { crm: { url: 'https://crm.example/mcp', auth: 'oauth' } } }, encryption: false }),
      (err: unknown) =>
        err instanceof OAuthEncryptionRequiredError && /server "crm" signs in with OAuth/.test(err.message) && /DURABLE_MCP_ENCRYPTION_KEYS/.test(err.message),
    );
  });

  it('sends browsers back to the inbox: $DURABLE_MCP_OAUTH_REDIRECT_URL, else under notify.inboxUrl, else the local inbox', () => {
    const bare = parseMcpConfig({ mcpServers: {} });
    const notified = parseMcpConfig({ mcpServers: {}, notify: { url: 'https://hooks.example/x', inboxUrl: 'https://inbox.example/team' } });
    assert.equal(defaultRedirectUrl(bare, {}), 'http://127.0.0.1:8787/oauth/callback');
    assert.equal(defaultRedirectUrl(notified, {}), 'https://inbox.example/team/oauth/callback');
    assert.equal(defaultRedirectUrl(notified, { DURABLE_MCP_OAUTH_REDIRECT_URL: 'https://in.example/oauth/callback' }), 'https://in.example/oauth/callback');
  });
});
