import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inboxOAuthUrls, inboxPublicUrlProblem } from '../../src/contract/client-metadata.js';
import { CredentialSeal, envReferenceProblems, parseMcpConfig } from '../../src/mcp/index.js';
import { mallocArenaHint, mcpConfigPathFrom } from '../../src/cli/worker-command.js';
import { createWorker } from '../../src/worker.js';
import { DEFAULT_MAX_CACHED_WORKFLOWS, maxCachedWorkflowsFromEnv, zeroCacheWarning } from '../../src/worker/cache.js';
import { defaultRedirectUrl, OAuthEncryptionRequiredError } from '../../src/worker/oauth.js';
import { DurableMcpPlugin } from '../../src/worker/plugin.js';
import { generateEncryptionKey, parseEncryptionKeys, EncryptionCodec } from '../../src/codec/index.js';
import { workflowBundleFile, workflowCode, workflowsPath } from '../../src/worker/workflow-code.js';
import { encodedFailureConverterPath } from '../../src/codec/index.js';

describe('worker process settings', () => {
  it('warns when the workflow cache is off (Core then drops concurrent queries), and only then', () => {
    assert.match(zeroCacheWarning(0) ?? '', /maxCachedWorkflows is 0 .*drops queries.*`pending` and the inbox can time out/);
    assert.equal(zeroCacheWarning(DEFAULT_MAX_CACHED_WORKFLOWS), undefined);
    assert.equal(zeroCacheWarning(1), undefined);
    assert.equal(zeroCacheWarning(undefined), undefined);
  });

  it('sizes the workflow cache from DURABLE_MCP_MAX_CACHED_WORKFLOWS (a whole number, 0 or more), else the default', () => {
    assert.equal(maxCachedWorkflowsFromEnv({}), DEFAULT_MAX_CACHED_WORKFLOWS);
    assert.equal(maxCachedWorkflowsFromEnv({ DURABLE_MCP_MAX_CACHED_WORKFLOWS: '0' }), 0);
    assert.equal(maxCachedWorkflowsFromEnv({ DURABLE_MCP_MAX_CACHED_WORKFLOWS: '500' }), 500);
    for (const bad of ['', '-1', '2.5', 'many'])
      assert.equal(maxCachedWorkflowsFromEnv({ DURABLE_MCP_MAX_CACHED_WORKFLOWS: bad }), DEFAULT_MAX_CACHED_WORKFLOWS);
  });

  it("runs the user's workflows when given, else the prebuilt bundle that fits the data converter, else durable-mcp's entry", () => {
    const mine = { codePath: '/app/bundle.js' };
    assert.deepEqual(workflowCode({ workflowBundle: mine, workflowsPath: '/app/w.ts' }, undefined, false), { workflowBundle: mine });
    assert.deepEqual(workflowCode({ workflowsPath: '/app/w.ts' }, undefined, true), { workflowsPath: '/app/w.ts' });
    assert.deepEqual(workflowCode({}, undefined, false), { workflowBundle: { codePath: workflowBundleFile() } });
    assert.deepEqual(workflowCode({}, { failureConverterPath: encodedFailureConverterPath }, true), {
      workflowBundle: { codePath: workflowBundleFile({ traced: true, encodedFailures: true }) },
    });
    // A failure or payload converter of the user's own is bundled at start with durable-mcp's workflows.
    assert.deepEqual(workflowCode({}, { failureConverterPath: '/app/failures.js' }, false), { workflowsPath });
    assert.deepEqual(workflowCode({}, { payloadConverterPath: '/app/payloads.js' }, false), { workflowsPath });
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
    // The inbox's public URL comes before notify.inboxUrl (and after the variable).
    const published = inboxOAuthUrls('https://inbox.example.com/durable');
    assert.equal(published.callback, 'https://inbox.example.com/durable/oauth/callback');
    assert.equal(published.clientMetadataUrl, 'https://inbox.example.com/durable/oauth/client-metadata.json');
    assert.equal(defaultRedirectUrl(notified, {}, published), 'https://inbox.example.com/durable/oauth/callback');
    assert.equal(defaultRedirectUrl(notified, { DURABLE_MCP_OAUTH_REDIRECT_URL: 'https://in.example/cb' }, published), 'https://in.example/cb');
  });

  it('refuses a bad inbox public URL before it connects, naming where it came from', async () => {
    const base = {
      mcpConfig: { mcpServers: { crm: { url: 'https://crm.example/mcp', auth: 'oauth' } } },
      oauth: { seal: new CredentialSeal([{ id: 'k1', key: Buffer.alloc(32, 1) }]) },
    };
    for (const [url, problem] of [
      ['https://inbox.example/?x=1', /oauth\.inboxPublicUrl must have no query or fragment \(it is a base URL\), got "https:\/\/inbox\.example\/\?x=1"$/],
      ['ftp://inbox.example/', /oauth\.inboxPublicUrl must be an https \(or http\) URL, got "ftp:\/\/inbox\.example\/"$/],
      ['https://inbox.example/a/../b/', /must have no "\." or "\.\." path segments/],
      ['inbox.example', /must be an absolute URL/],
    ] as const) {
      await assert.rejects(createWorker({ ...base, encryption: false, oauth: { ...base.oauth, inboxPublicUrl: url } }), problem);
    }
    assert.equal(inboxPublicUrlProblem('http://inbox.internal:8787/'), undefined);
    assert.match(inboxOAuthUrls('http://inbox.internal/').noDocument ?? '', /is not https, so it serves no Client ID Metadata Document/);
    assert.equal(inboxOAuthUrls('http://127.0.0.1:8787/').noDocument, undefined, 'loopback http: no document, and nothing to warn about');
  });

  it('warns of a client secret or key without auth.issuer (it would go to the first authorization server a login finds)', () => {
    const encryption = new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('k'), 'test'));
    const server = (auth: Record<string, unknown>) => ({ url: 'https://mcp.example/mcp', auth: { clientId: 'c', ...auth } });
    const plugin = new DurableMcpPlugin({
      encryption,
      mcpConfig: {
        servers: {
          secret: server({ clientSecret: 's3cret' }),
          bound: server({ clientSecret: 's3cret', issuer: 'https://as.example' }),
          none: server({}),
        },
      },
    });
    const unbound = plugin.warnings.filter((w) => /without auth\.issuer/.test(w));
    assert.equal(unbound.length, 1, plugin.warnings.join('; '));
    assert.match(unbound[0]!, /^server "secret": auth\.clientSecret without auth\.issuer: .*set "auth\.issuer"/);
    assert.ok(!unbound[0]!.includes('s3cret'), 'never the secret itself');
  });
});
