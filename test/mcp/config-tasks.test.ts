/** The per-server `tasks` setting (MCP Tasks, 2026-07-28 extension; docs/tasks.md). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMcpConfig } from '../../src/mcp/config.js';
import { isMcpSourceError } from '../../src/mcp/errors.js';

const server = (raw: Record<string, unknown>) => parseMcpConfig({ mcpServers: { fx: { command: ['x'], ...raw } } }).servers.fx as { tasks: string };

describe('parseMcpConfig: tasks', () => {
  it('defaults to "auto"; accepts "auto" and "off"', () => {
    assert.equal(server({}).tasks, 'auto');
    assert.equal(server({ tasks: 'auto' }).tasks, 'auto');
    assert.equal(server({ tasks: 'off' }).tasks, 'off');
  });

  it('refuses anything else, naming the server and the field', () => {
    for (const bad of ['on', true, 1]) {
      assert.throws(
        () => server({ tasks: bad }),
        (err: unknown) =>
          isMcpSourceError(err, 'McpConfigInvalid') && /server "fx"/.test(err.message) && /field "tasks" must be "auto" or "off", got/.test(err.message),
      );
    }
  });
});
