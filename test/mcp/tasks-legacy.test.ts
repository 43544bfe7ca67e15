/**
 * The 2025-11-25 form of MCP Tasks on the MCP plane, against server-everything (SDK v1) over stdio: a call aborted
 * while its task works sends `tasks/cancel`, and the server's task ends `cancelled`.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { callAsLegacyTask } from '../../src/mcp/tasks-legacy.js';
import { eventually } from '../helpers/temporal.js';

const require = createRequire(import.meta.url);
const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const RAW = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) } };

describe('2025-11-25 tasks: cancellation', () => {
  it('a call aborted while its task works sends tasks/cancel: the task ends cancelled', async () => {
    const client = new Client({ name: 'test', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }));
    try {
      const abort = new AbortController();
      let taskId: string | undefined;
      const call = callAsLegacyTask({
        client,
        server: 'everything',
        tool: 'simulate-research-query',
        params: { name: 'simulate-research-query', arguments: { topic: 'x' } },
        timeoutMs: 60_000,
        signal: abort.signal,
        onTask: (id) => {
          taskId = id;
          abort.abort(new Error('cancelled by the test'));
        },
      });
      await assert.rejects(call);
      assert.ok(taskId, 'the task was created');
      const status = await eventually(async () => {
        const task = (await client.request({ method: 'tasks/get', params: { taskId } } as never, RAW)) as { status?: string };
        return task.status === 'cancelled' ? task.status : undefined;
      }, 'the task cancelled');
      assert.equal(status, 'cancelled');
    } finally {
      await client.close();
    }
  });
});
