/**
 * F7: a request watched for 30 simulated days. Runs test/workflows/long-wait.test.js (time-skipping server,
 * real fixture server) with DURABLE_MCP_LONG_WAIT_DAYS=30: `waitForPending` every 10 minutes, 4,320 waits; the
 * tool call continues as new while it waits and the person is asked once. Full suite only (minutes of work;
 * `npm test` runs the same test for 4 days).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secs, within } from './lib.js';
import type { CaseContext, FaultCase } from './suite.js';

const runTests = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'run-tests.js');

export const f7: FaultCase = {
  id: 'F7',
  title: 'a request watched with waitForPending every 10 minutes for 30 days',
  timeoutMs: () => 900_000,
  async run(ctx: CaseContext) {
    const t0 = Date.now();
    const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
    const child = spawn(process.execPath, [runTests, 'workflows/long-wait'], {
      env: { ...env, DURABLE_MCP_LONG_WAIT_DAYS: '30', DURABLE_MCP_FAULT_TAG: ctx.tag },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    ctx.defer(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    const code = await within(new Promise<number | null>((r) => child.once('exit', (c) => r(c))), 840_000, 'long-wait test');
    const line = out.match(/long wait: .*/)?.[0];
    if (line) ctx.note(line);
    assert.equal(code, 0, `DURABLE_MCP_LONG_WAIT_DAYS=30 node dist/scripts/run-tests.js workflows/long-wait failed:\n${out.slice(-3000)}`);
    return `${line ?? 'passed'} in ${secs(Date.now() - t0)}`;
  },
};
