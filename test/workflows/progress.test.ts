import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DurableMcpClient } from '../../src/client/index.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { progressQuery } from '../../src/workflows/messages.js';
import { readFixtureLog } from '../fixtures/paths.js';
import { eventually, suiteEnvironment, tempDir } from '../helpers/temporal.js';

describe('progress of a tool call', () => {
  const suite = suiteEnvironment({ name: 'progress' });

  it('a tool that reports progress: the `progress` query and the heartbeat details show it while the call runs', async () => {
    const until = join(tempDir(), 'go-on');
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `progress-${Date.now()}`,
      args: [{ server: 'fx', tool: 'progress', arguments: { until }, heartbeatTimeout: '3s' }],
    });
    const shown = await eventually(async () => {
      const p = await handle.query(progressQuery);
      return p.length > 0 ? p : undefined;
    }, 'the progress query to show the first report');
    assert.deepEqual(shown, [{ callId: 'c1', server: 'fx', tool: 'progress', progress: 1, total: 2, message: 'halfway' }]);
    const c = new DurableMcpClient(suite.env.client, { taskQueue: suite.taskQueue });
    assert.deepEqual(await c.progress(handle.workflowId), shown, 'the client helper returns the same');

    // The activity's heartbeat details carry it too (what `temporal workflow describe` shows).
    const details = await eventually(async () => {
      const d = await handle.describe();
      const payload = d.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
      const value = payload ? (suite.env.client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as { progress?: unknown }) : undefined;
      return value?.progress ? value : undefined;
    }, 'heartbeat details with the progress');
    assert.deepEqual(details.progress, { progress: 1, total: 2, message: 'halfway' });
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'all of this while the call runs');

    writeFileSync(until, '');
    assert.deepEqual(await handle.result(), { output: 'done', isError: false });
    const token = readFixtureLog(suite.logPath).find((e) => e.event === 'progress-token');
    assert.ok(token && token.token !== null, 'the tool call carried a progressToken');
  });
});
