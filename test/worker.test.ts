import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mallocArenaHint, mcpConfigPathFrom } from '../src/worker.js';

describe('worker process settings', () => {
  it('advises MALLOC_ARENA_MAX=2 on Linux when it is unset, and says nothing otherwise', () => {
    assert.match(mallocArenaHint({}, 'linux') ?? '', /MALLOC_ARENA_MAX is not set.*MALLOC_ARENA_MAX=2/);
    assert.equal(mallocArenaHint({ MALLOC_ARENA_MAX: '2' }, 'linux'), undefined);
    assert.equal(mallocArenaHint({}, 'darwin'), undefined);
  });

  it('finds the MCP config in --mcp-config, then MCP_CONFIG, then mcp.json', () => {
    assert.match(mcpConfigPathFrom(['--mcp-config', '/etc/a.json'], {}), /\/etc\/a\.json$/);
    assert.match(mcpConfigPathFrom(['--mcp-config=/etc/b.json'], {}), /\/etc\/b\.json$/);
    assert.match(mcpConfigPathFrom([], { MCP_CONFIG: '/etc/c.json' }), /\/etc\/c\.json$/);
    assert.match(mcpConfigPathFrom([], {}), /\/mcp\.json$/);
  });
});
