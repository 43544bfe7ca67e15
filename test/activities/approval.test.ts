/**
 * The approval gate of `callMcpTool` (src/gates/approval/activity.ts, docs/approvals.md "Asked once, bound to the
 * arguments"): the activity runs the tool only with the arguments whose digest a person approved. The gate alone, then
 * the activity itself in Temporal's MockActivityEnvironment against the real v1 fixture server, counting its runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { approvalGate } from '../../src/gates/approval/activity.js';
import { callMcpToolActivity } from '../../src/activities/tool-call.js';
import { argumentsDigest, approvalRequestId } from '../../src/contract/approval.js';
import { FailureTypes } from '../../src/contract/index.js';
import { parseMcpConfig, SessionPool } from '../../src/mcp/index.js';
import { events, stdioFixture } from '../helpers/mcp.js';
import type { CallMcpToolInput } from '../../src/contract/activities.js';

const dir = mkdtempSync(join(tmpdir(), 'approval-gate-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const proposed = { to: 'bob', amount: 5 };
const approvedOf = (args: Record<string, unknown>) => ({ id: approvalRequestId('call-1', argumentsDigest(args)), digest: argumentsDigest(args) });
const input = (args: Record<string, unknown>, approval?: CallMcpToolInput['approval']): CallMcpToolInput => ({
  server: 'bank',
  tool: 'transfer',
  arguments: args,
  callId: 'call-1',
  toolTimeoutMs: 10_000,
  ...(approval ? { approval } : {}),
});

function isMismatch(err: unknown): boolean {
  assert.ok(err instanceof ApplicationFailure, `an ApplicationFailure, got ${String(err)}`);
  assert.equal(err.type, FailureTypes.ApprovalMismatch);
  assert.equal(err.nonRetryable, true, 'not retried: no attempt may run other arguments');
  assert.match(err.message, /tool "transfer" of server "bank" was given arguments other than the ones approved/);
  return true;
}

describe('approval gate: bound to the approved digest', () => {
  const server = parseMcpConfig({ mcpServers: { bank: { command: ['x'], approval: 'always' } } }).servers.bank;
  const tool = { name: 'transfer', inputSchema: { type: 'object' } };

  it('arguments whose digest is not the approved one fail ApprovalMismatch (non-retryable); the approved ones pass', () => {
    const approved = approvedOf(proposed);
    assert.throws(() => approvalGate(server, input({ to: 'mallory', amount: 5 }, { approved }), tool, {}), isMismatch);
    assert.throws(() => approvalGate(server, input({ ...proposed, memo: 'x' }, { approved }), tool, {}), isMismatch, 'an added argument');
    assert.throws(() => approvalGate(server, input({ to: 'bob' }, { approved }), tool, {}), isMismatch, 'a removed argument');
    assert.equal(approvalGate(server, input({ amount: 5, to: 'bob' }, { approved }), tool, {}), undefined, 'the same arguments in another key order run');
    assert.equal(approvalGate(server, input(proposed), tool, {})?.status, 'approval_required', 'without an approval: asked');
  });
});

describe('approval gate: the callMcpTool activity against a real MCP server', () => {
  it('a mismatched digest: the server sees no call of the tool, and the failure is ApprovalMismatch, non-retryable', async () => {
    const log = join(dir, 'bank.jsonl');
    const pool = new SessionPool(parseMcpConfig({ mcpServers: { bank: stdioFixture(log, { approval: 'always' }) } }));
    const activity = callMcpToolActivity({ pool });
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 30_000 });
    try {
      await assert.rejects(env.run(activity, input({ to: 'mallory', amount: 900 }, { approved: approvedOf(proposed) })), isMismatch);
      assert.deepEqual(events(log, 'call', 'transfer'), [], 'no tools/call reached the server');
      assert.deepEqual(events(log, 'side_effect', 'transfer'), [], '0 runs');

      // The same activity, the same session, with the approved arguments: the tool runs once (the harness counts runs).
      const outcome = await env.run(activity, input(proposed, { approved: approvedOf(proposed) }));
      assert.deepEqual(outcome, { status: 'completed', result: { output: 'sent 5 to bob', isError: false } });
      assert.deepEqual(
        events(log, 'side_effect', 'transfer').map((e) => e.args),
        [proposed],
        '1 run, with the approved arguments',
      );
    } finally {
      await pool.close();
    }
  });
});
