/** Reading a server's task (MCP Tasks, 2026-07-28 extension): outside input, checked field by field (docs/security.md). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readModernTask } from '../../src/mcp/tasks-modern.js';
import { isMcpSourceError } from '../../src/mcp/errors.js';
import { requiresTask, serverRunsToolTasks } from '../../src/mcp/tasks-legacy.js';

const violation = (value: unknown, pattern: RegExp) =>
  assert.throws(
    () => readModernTask(value, 'srv', 'CreateTaskResult'),
    (err: unknown) => isMcpSourceError(err, 'ProtocolViolation') && /server "srv"/.test(err.message) && pattern.test(err.message),
  );

describe('readModernTask', () => {
  it('reads the fields the worker uses, bounding the message and flooring the numbers', () => {
    const task = readModernTask(
      { taskId: 't-1', status: 'working', statusMessage: 'x'.repeat(5000), ttlMs: 1000.7, pollIntervalMs: 50, extra: 1 },
      'srv',
      'CreateTaskResult',
    );
    assert.deepEqual(
      { ...task, statusMessage: task.statusMessage?.length },
      { taskId: 't-1', status: 'working', statusMessage: 1000, ttlMs: 1000, pollIntervalMs: 50 },
    );
    assert.equal(readModernTask({ taskId: 't', status: 'working', ttlMs: null }, 'srv', 'x').ttlMs, null);
  });

  it('refuses a task id that is not 1..256 printable ASCII characters (it becomes a header and a log field)', () => {
    violation({ taskId: '', status: 'working' }, /taskId must be 1\.\.256 printable ASCII/);
    violation({ taskId: 'a'.repeat(257), status: 'working' }, /taskId/);
    violation({ taskId: 'a\r\nX-Evil: 1', status: 'working' }, /taskId/);
    violation({ taskId: 42, status: 'working' }, /got 42/);
  });

  it('refuses an unknown status, and the statuses without their payload', () => {
    violation({ taskId: 't', status: 'done' }, /status must be a task status, got "done"/);
    violation({ taskId: 't', status: 'input_required' }, /must carry "inputRequests"/);
    violation({ taskId: 't', status: 'completed' }, /must carry "result"/);
    violation('nope', /must be an object/);
  });

  it("keeps a failed task's error, its message bounded and its data only while small", () => {
    const small = readModernTask({ taskId: 't', status: 'failed', error: { code: -32000, message: 'm'.repeat(3000), data: { why: 'x' } } }, 'srv', 'x');
    assert.deepEqual({ ...small.error, message: small.error?.message?.length }, { code: -32000, message: 2000, data: { why: 'x' } });
    const big = readModernTask({ taskId: 't', status: 'failed', error: { code: 1, message: 'm', data: 'd'.repeat(10_000) } }, 'srv', 'x');
    assert.deepEqual(big.error, { code: 1, message: 'm' });
  });
});

describe('the 2025-11-25 form: which calls are tasks', () => {
  it('only a tool with taskSupport "required" on a server declaring tasks.requests.tools.call', () => {
    assert.equal(requiresTask({ execution: { taskSupport: 'required' } }), true);
    assert.equal(requiresTask({ execution: { taskSupport: 'optional' } }), false);
    assert.equal(requiresTask({}), false);
    assert.equal(serverRunsToolTasks({ tasks: { requests: { tools: { call: {} } } } }), true);
    assert.equal(serverRunsToolTasks({ tasks: { list: {} } }), false);
    assert.equal(serverRunsToolTasks(undefined), false);
  });
});
