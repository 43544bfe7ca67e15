/**
 * What a tool call's attempt turns into (src/activities/outcome.ts), without a Temporal server or an MCP server: a
 * round's result or input requests, a legacy-era elicitation's end, an error's outcome.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { callErrorOutcome, completedOutcome, elicitationEnd, MAX_REQUEST_STATE_BYTES, releasedOutcome, roundOutcome } from '../../src/activities/outcome.js';
import { FailureTypes, type Request } from '../../src/contract/index.js';
import { loginRequired, McpSourceError } from '../../src/mcp/index.js';
import { MAX_RESULT_BYTES, type CallMcpToolInput } from '../../src/contract/activities.js';

const input: CallMcpToolInput = { server: 'files', tool: 'read', callId: 'call-1', toolTimeoutMs: 1000 };
const form = (message: string) => ({ mode: 'form', message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
const request: Request = { id: 'r1', kind: 'input', prompt: 'Name?', schema: { type: 'object', properties: {} } } as unknown as Request;

function failsWith(fn: () => unknown, type: string, fragment?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApplicationFailure, `an ApplicationFailure, got ${String(err)}`);
    assert.equal(err.type, type);
    if (fragment) assert.ok(err.message.includes(fragment), `"${err.message}" should mention ${fragment}`);
    return true;
  });
}

describe('outcome of a round', () => {
  it('a complete round is the tool result, with no worker flags', () => {
    const result = { output: 'hi', isError: false };
    assert.deepEqual(roundOutcome(input, { kind: 'complete', result }, { notify: true }), { status: 'completed', result });
  });
  it('a result over the payload limit fails ResultTooLarge, naming the size', () => {
    const result = { output: 'x'.repeat(MAX_RESULT_BYTES), isError: false };
    failsWith(() => completedOutcome(input, result), FailureTypes.ResultTooLarge, 'over the 1048576-byte limit');
  });
  it('an input_required round is the mrtr form: its elicitations and its requestState, with the worker flags', () => {
    const outcome = roundOutcome(
      input,
      { kind: 'input_required', inputRequests: { name: { method: 'elicitation/create', params: form('Your name?') } }, requestState: 'st' },
      { searchAttribute: true },
    );
    assert.equal(outcome.status, 'input_required');
    assert.ok(outcome.status === 'input_required' && outcome.form === 'mrtr');
    assert.deepEqual(Object.keys(outcome.inputRequests), ['name']);
    assert.equal(outcome.requestState, 'st');
    assert.equal(outcome.searchAttribute, true);
  });
  it('an input request of another kind fails UnsupportedInputRequest; a requestState over its bound fails RequestStateTooLarge', () => {
    failsWith(
      () => roundOutcome(input, { kind: 'input_required', inputRequests: { s: { method: 'sampling/createMessage', params: {} } } }, {}),
      FailureTypes.UnsupportedInputRequest,
      'sampling/createMessage',
    );
    failsWith(
      () => roundOutcome(input, { kind: 'input_required', inputRequests: {}, requestState: 'x'.repeat(MAX_REQUEST_STATE_BYTES + 1) }, {}),
      FailureTypes.RequestStateTooLarge,
    );
  });
  it('a -32042 error is the url-error form, its URLs keyed url1, url2; one with no URL fails', () => {
    const elicitation = { mode: 'url', message: 'Connect', url: 'https://example.com/connect', elicitationId: 'e1' };
    const outcome = roundOutcome(input, { kind: 'url_required', elicitations: [elicitation], message: 'needs a URL' }, {});
    assert.ok(outcome.status === 'input_required' && outcome.form === 'url-error');
    assert.deepEqual(Object.keys(outcome.inputRequests), ['url1']);
    failsWith(
      () => roundOutcome(input, { kind: 'url_required', elicitations: [], message: 'nothing' }, {}),
      FailureTypes.UnsupportedInputRequest,
      'named no URL',
    );
  });
  it('a released call carries its request, why, and the worker flags', () => {
    assert.deepEqual(releasedOutcome({ request, reason: 'hold-expired' }, { notify: true }), {
      status: 'released',
      request,
      reason: 'hold-expired',
      notify: true,
    });
  });
});

describe('end of a legacy-era elicitation', () => {
  const answer = { id: 'r1', ok: true, content: { name: 'Ada' } } as never;
  it('an answer goes to the server', () => {
    assert.deepEqual(elicitationEnd(request, { update: { outcome: { status: 'answered', answer } } }, false), { answer });
  });
  it('an answer to a call whose session was promised to another call releases it (session-needed)', () => {
    assert.deepEqual(elicitationEnd(request, { update: { outcome: { status: 'answered', answer } } }, true), {
      release: { request, reason: 'session-needed' },
    });
  });
  it('the workflow released the call (hold expired), with the request it names', () => {
    const other = { ...request, id: 'r0' };
    assert.deepEqual(elicitationEnd(request, { update: { outcome: { status: 'released', request: other } } } as never, false), {
      release: { request: other, reason: 'hold-expired' },
    });
  });
  it('no outcome (the update failed) is workflow-unreachable; an interruption releases with its reason', () => {
    assert.deepEqual(elicitationEnd(request, { update: {} }, false), { release: { request, reason: 'workflow-unreachable' } });
    assert.deepEqual(elicitationEnd(request, { interrupted: 'worker-shutdown' }, true), { release: { request, reason: 'worker-shutdown' } });
  });
});

describe('outcome of an error', () => {
  const call = { server: 'files', era: 'auto' as const };
  it('a cancelled activity fails cancelled, whatever the error', () => {
    const outcome = callErrorOutcome(new Error('aborted'), { ...call, cancelled: { reason: 'TIMED_OUT' } });
    assert.ok(outcome.kind === 'failed' && outcome.failure instanceof CancelledFailure);
    assert.equal(outcome.failure.message, 'TIMED_OUT');
    const own = new CancelledFailure('x');
    assert.deepEqual(callErrorOutcome(new Error('aborted'), { ...call, cancelled: { reason: own } }), { kind: 'failed', failure: own });
  });
  it('a refused token of a call behind OAuth is the login it needs; without a login it is a failure', () => {
    const err = loginRequired('files', 'rejected', 3);
    assert.deepEqual(callErrorOutcome(err, { ...call, generation: 3 }), { kind: 'login-required', needed: err });
    const outcome = callErrorOutcome(err, call);
    assert.ok(outcome.kind === 'failed' && outcome.failure instanceof ApplicationFailure);
    assert.equal(outcome.failure.type, FailureTypes.ToolCallFailed);
  });
  it('a tool asking the old way in the modern era runs again in the legacy era (era auto) or fails (era pinned)', () => {
    const err = new McpSourceError('BackChannelRefused', 'tool "read" asked elicitation/create', { server: 'files', tool: 'read', era: 'modern' });
    const again = callErrorOutcome(err, call);
    assert.ok(again.kind === 'legacy-era');
    assert.equal(again.failure.type, FailureTypes.ToolCallFailed);
    assert.equal(again.failure.nextRetryDelay, 1);
    assert.ok(again.failure.message.includes('running it again in the legacy era'));
    const pinned = callErrorOutcome(err, { ...call, era: 'modern' });
    assert.ok(pinned.kind === 'failed' && pinned.failure instanceof ApplicationFailure);
    assert.equal(pinned.failure.type, FailureTypes.McpConfigInvalid);
  });
  it('other errors are their documented failures, retryable or not', () => {
    const unknown = callErrorOutcome(new McpSourceError('UnknownServer', 'no server "files"', { server: 'files' }), call);
    assert.ok(unknown.kind === 'failed' && unknown.failure instanceof ApplicationFailure);
    assert.equal(unknown.failure.type, FailureTypes.UnknownServer);
    assert.equal(unknown.failure.nonRetryable, true);
    const down = callErrorOutcome(new McpSourceError('McpServerUnavailable', 'refused', { server: 'files', phase: 'connect' }), call);
    assert.ok(down.kind === 'failed' && down.failure instanceof ApplicationFailure);
    assert.equal(down.failure.type, FailureTypes.McpServerUnavailable);
    assert.equal(down.failure.nonRetryable, false);
  });
});
