import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpConfigError } from '../src/mcp/index.js';
import { createWorker, mallocArenaHint, mcpConfigPathFrom } from '../src/worker.js';

describe('worker process settings', () => {
  it('advises MALLOC_ARENA_MAX=2 on Linux when it is unset, and says nothing otherwise', () => {
    assert.match(mallocArenaHint({}, 'linux') ?? '', /MALLOC_ARENA_MAX is not set.*MALLOC_ARENA_MAX=2/);
    assert.equal(mallocArenaHint({ MALLOC_ARENA_MAX: '2' }, 'linux'), undefined);
    assert.equal(mallocArenaHint({}, 'darwin'), undefined);
  });

  it('refuses to start when a ${VAR} of an enabled server is not set, naming the server, the field and the variable', async () => {
    delete process.env.DURABLE_MCP_TEST_UNSET_TOKEN;
    await assert.rejects(
      createWorker({
        mcpConfig: {
          mcpServers: {
            gh: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${DURABLE_MCP_TEST_UNSET_TOKEN}' } },
            off: { command: ['x'], env: { T: '${DURABLE_MCP_TEST_UNSET_TOKEN}' }, enabled: false },
          },
        },
      }),
      (err: unknown) => {
        assert.ok(err instanceof McpConfigError);
        assert.match(err.message, /server "gh": field "headers.Authorization" refers to \$\{DURABLE_MCP_TEST_UNSET_TOKEN\}, which is not set/);
        return true;
      },
    );
  });

  it('finds the MCP config in --mcp-config, then MCP_CONFIG, then mcp.json', () => {
    assert.match(mcpConfigPathFrom(['--mcp-config', '/etc/a.json'], {}), /\/etc\/a\.json$/);
    assert.match(mcpConfigPathFrom(['--mcp-config=/etc/b.json'], {}), /\/etc\/b\.json$/);
    assert.match(mcpConfigPathFrom([], { MCP_CONFIG: '/etc/c.json' }), /\/etc\/c\.json$/);
    assert.match(mcpConfigPathFrom([], {}), /\/mcp\.json$/);
  });
});
