import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  approvalRequest,
  approvalRequestId,
  approvedArguments,
  argumentsDigest,
  argumentsForm,
  globMatch,
  needsApproval,
  notApprovedResult,
  parseApprovalPolicy,
  type ApprovalPolicy,
} from '../../src/contract/approval.js';
import { checkAnswer } from '../../src/contract/answer.js';

const policy = (raw: unknown): ApprovalPolicy => {
  const p = parseApprovalPolicy(raw, (v) => (v === '1h' ? 3_600_000 : Number.NaN));
  assert.ok(!('problem' in p), JSON.stringify(p));
  return p;
};
const readOnly = { name: 'read', annotations: { readOnlyHint: true } };
const bare = { name: 'delete_all' };

describe('approvals: the policy (pure)', () => {
  it('"never" gates nothing, "always" everything, "destructive" every tool unless annotations are trusted and say read-only', () => {
    assert.equal(needsApproval(policy('never'), bare), false);
    assert.equal(needsApproval(policy('always'), readOnly), true);
    assert.equal(needsApproval(policy('destructive'), readOnly), true, 'annotations are ignored by default');
    assert.equal(needsApproval(policy({ annotations: 'trust' }), readOnly), false, 'trusted: read-only is not gated');
    assert.equal(needsApproval(policy({ annotations: 'trust' }), bare), true, 'a missing hint is the worst case');
    assert.equal(needsApproval(policy({ annotations: 'trust' }), { name: 'x', annotations: { readOnlyHint: 'true' } }), true, 'only the boolean true counts');
  });

  it('tools and except take names and globs; a call may ask for more ("always"), never less', () => {
    const p = policy({ tools: ['delete_*', 'send_?ail'], except: ['delete_draft'] });
    assert.equal(needsApproval(p, { name: 'delete_all' }), true);
    assert.equal(needsApproval(p, { name: 'send_mail' }), true);
    assert.equal(needsApproval(p, { name: 'delete_draft' }), false);
    assert.equal(needsApproval(p, { name: 'read' }), false);
    assert.equal(needsApproval(p, { name: 'read' }, 'always'), true);
    assert.equal(needsApproval(policy('never'), { name: 'read' }, 'always'), true);
  });

  it('globs match without regexes, in linear time on hostile names', () => {
    assert.equal(globMatch('*', ''), true);
    assert.equal(globMatch('a*b*c', 'axxbyyc'), true);
    assert.equal(globMatch('a*b*c', 'axxbyy'), false);
    assert.equal(globMatch('a.b', 'axb'), false, 'a dot is a dot');
    assert.equal(globMatch('*'.repeat(50) + 'x', 'a'.repeat(5000)), false);
  });

  it('names what is wrong with a policy', () => {
    const toMs = () => Number.NaN;
    assert.deepEqual(parseApprovalPolicy({ annotations: 1 }, toMs), { field: 'approval.annotations', problem: 'must be "trust" or "ignore", got 1' });
    assert.equal((parseApprovalPolicy([], toMs) as { field: string }).field, 'approval');
    assert.deepEqual(policy({ expiresIn: '1h' }).expiresInMs, 3_600_000);
  });
});

describe('approvals: bound to the arguments (pure)', () => {
  it('the digest is the same for the same arguments in any key order, and differs when a value differs', () => {
    assert.equal(argumentsDigest({ a: 1, b: 'x' }), argumentsDigest({ b: 'x', a: 1 }));
    assert.notEqual(argumentsDigest({ a: 1 }), argumentsDigest({ a: 2 }));
    assert.equal(argumentsDigest(undefined), argumentsDigest({}));
    assert.equal(approvalRequestId('c1', argumentsDigest({ a: 1 })), `c1.approve.${argumentsDigest({ a: 1 }).slice(0, 12)}`);
  });

  const schema = {
    type: 'object',
    properties: { to: { type: 'string', minLength: 1 }, amount: { type: 'number', maximum: 1000 } },
    required: ['to', 'amount'],
  };

  it('the form is the tool schema prefilled with the proposed values; an accept without data approves them, an edit is checked', () => {
    const { request, context } = approvalRequest(
      { callId: 'c1', server: 'bank', arguments: { to: 'bob', amount: 5 } },
      { name: 'transfer', title: 'Transfer', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', additionalProperties: false, ...schema } },
      policy('always'),
    );
    assert.equal(context.editable, true);
    assert.match(request.prompt, /^Allow server "bank" to run tool "Transfer" \(transfer\)\?/);
    assert.ok(!request.prompt.includes('bob'), 'no argument value in the prompt');
    const accepted = checkAnswer({ id: request.id, ok: true }, request);
    assert.ok(accepted.ok);
    assert.deepEqual(approvedArguments({ to: 'bob', amount: 5 }, accepted.answer, true), { to: 'bob', amount: 5 });
    const edited = checkAnswer({ id: request.id, ok: true, data: { to: 'bob', amount: 7 } }, request);
    assert.ok(edited.ok);
    assert.deepEqual(approvedArguments({ to: 'bob', amount: 5 }, edited.answer, true), { to: 'bob', amount: 7 });
    const invalid = checkAnswer({ id: request.id, ok: true, data: { to: 'bob', amount: 5000 } }, request);
    assert.equal(invalid.ok, false);
  });

  it('an edit is merged onto the proposed arguments: an optional argument the model proposed cannot be removed by leaving it out', () => {
    const optional = { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' }, memo: { type: 'string' } }, required: ['to'] };
    const proposed = { to: 'bob', amount: 5, memo: 'rent' };
    const { request } = approvalRequest({ callId: 'c3', server: 'bank', arguments: proposed }, { name: 'transfer', inputSchema: optional }, policy('always'));
    const edited = checkAnswer({ id: request.id, ok: true, data: { to: 'bob', amount: 7 } }, request);
    assert.ok(edited.ok);
    assert.deepEqual(approvedArguments(proposed, edited.answer, true), { to: 'bob', amount: 7, memo: 'rent' });
    assert.deepEqual(approvedArguments(proposed, { id: request.id, ok: true, data: { amount: 7 } }, true), { to: 'bob', amount: 7, memo: 'rent' });
  });

  it('a schema that is not a flat form gives an empty form: the arguments are approved as proposed', () => {
    assert.equal(argumentsForm({ type: 'object', properties: { items: { type: 'array', items: { type: 'object' } } } }, { items: [] }), undefined);
    assert.equal(argumentsForm(schema, { to: 'bob', amount: { nested: 1 } }), undefined, 'a proposed value the field refuses');
    const { request, context } = approvalRequest(
      { callId: 'c2', server: 's', arguments: { items: [{ a: 1 }] } },
      { name: 't', inputSchema: { type: 'object', properties: { items: { type: 'array' } } } },
      policy('always'),
    );
    assert.equal(context.editable, false);
    assert.deepEqual(request.data, { schema: { type: 'object', properties: {} } });
    assert.deepEqual(approvedArguments({ items: [{ a: 1 }] }, { id: request.id, ok: true, data: { items: [] } }, false), { items: [{ a: 1 }] });
  });

  it('a tool that did not run: isError, an output that says why, and metadata.approval with who', () => {
    const declined = notApprovedResult({ server: 's', tool: 't' }, 'declined', { id: 'c1.approve.x', by: 'ada', at: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(declined, {
      output: 'Tool "t" of server "s" did not run: a person (ada) declined to approve it.',
      isError: true,
      metadata: { approval: 'declined', approvalId: 'c1.approve.x', answeredBy: 'ada', answeredAt: '2026-01-01T00:00:00.000Z' },
    });
    assert.match(notApprovedResult({ server: 's', tool: 't' }, 'expired', { id: 'x', by: 'expiry' }).output, /nobody approved it in time/);
    assert.match(notApprovedResult({ server: 's', tool: 't' }, 'cancelled', { id: 'x', by: 'workflow' }).output, /was cancelled/);
  });
});
