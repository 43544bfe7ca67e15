/**
 * The check of a call's arguments before a person is asked to approve them (src/contract/tool-arguments.ts; issue
 * 40): the size an approval shows in full, and the tool's input schema, with no key it does not declare. Pure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approvalRequest, argumentsDigest } from '../../src/contract/approval.js';
import { APPROVAL_ARGUMENTS_MAX, argumentsJson, argumentsSchemaProblem, argumentsSizeProblem } from '../../src/contract/tool-arguments.js';
import { argumentsShown } from '../../src/workflows/host/records.js';

const transfer = {
  type: 'object',
  properties: {
    to: { type: 'string', minLength: 1, pattern: '^[a-z-]+$' },
    amount: { type: 'number', minimum: 1, maximum: 1000 },
    kind: { type: 'string', enum: ['wire', 'ach'] },
    lines: { type: 'array', maxItems: 2, items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
  },
  required: ['to', 'amount'],
};

describe('a call is checked against its tool before an approval is asked', () => {
  it('passes what the schema allows', () => {
    assert.equal(argumentsSchemaProblem(transfer, { to: 'bob', amount: 5 }), undefined);
    assert.equal(argumentsSchemaProblem(transfer, { to: 'bob', amount: 5, kind: 'ach', lines: [{ sku: 'a', extra: 1 }] }), undefined);
  });

  it('names the field of each problem', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ to: 'bob', amount: 5, cc: 'mallory' }, 'cc', /is not an argument of the tool .*it takes "to", "amount", "kind", "lines"/],
      [{ to: 'bob', amount: '5' }, 'amount', /must be number, got "5"/],
      [{ amount: 5 }, 'to', /is required by the tool, and missing/],
      [{ to: 'bob', amount: 5000 }, 'amount', /must be at most 1000/],
      [{ to: 'Bob!', amount: 5 }, 'to', /must match the pattern/],
      [{ to: 'bob', amount: 5, kind: 'cash' }, 'kind', /must be one of "wire", "ach"/],
      [{ to: 'bob', amount: 5, lines: [{ sku: 'a' }, {}] }, 'lines[1].sku', /is required/],
      [{ to: 'bob', amount: 5, lines: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }] }, 'lines', /at most 2 items/],
    ];
    for (const [args, field, problem] of cases) {
      const p = argumentsSchemaProblem(transfer, args);
      assert.equal(p?.field, field, JSON.stringify(args));
      assert.match(p!.problem, problem);
    }
  });

  it('a tool that takes no arguments refuses any; a schema that declares no keys, or allows more, takes them; no schema known: not checked', () => {
    assert.match(argumentsSchemaProblem({ type: 'object', properties: {} }, { x: 1 })!.problem, /it takes no arguments/);
    assert.equal(argumentsSchemaProblem({ type: 'object' }, { x: 1 }), undefined);
    assert.equal(argumentsSchemaProblem({ type: 'object', properties: { a: {} }, additionalProperties: true }, { x: 1 }), undefined);
    assert.equal(argumentsSchemaProblem({ type: 'object', properties: { a: {} }, additionalProperties: { type: 'string' } }, { x: 'y' }), undefined);
    assert.equal(argumentsSchemaProblem({ type: 'object', properties: { a: {} }, additionalProperties: { type: 'string' } }, { x: 1 })?.field, 'x');
    assert.equal(argumentsSchemaProblem(undefined, { x: 1 }), undefined);
  });

  it('an approval shows the arguments in full up to the limit; past it they are refused, naming the size and the limit', () => {
    const fits = { to: 'x'.repeat(APPROVAL_ARGUMENTS_MAX - 9) };
    assert.equal(argumentsJson(fits).length, APPROVAL_ARGUMENTS_MAX);
    assert.equal(argumentsSizeProblem(fits), undefined);
    assert.equal(argumentsShown(fits), argumentsJson(fits), 'shown whole, never cut');
    const over = { to: 'x'.repeat(APPROVAL_ARGUMENTS_MAX) };
    assert.match(argumentsSizeProblem(over)!.problem, new RegExp(`are ${APPROVAL_ARGUMENTS_MAX + 9} characters of JSON, over the ${APPROVAL_ARGUMENTS_MAX}`));
  });

  it("the approval's digest is of exactly what is shown", () => {
    const args = { to: `${'a'.repeat(1500)}mallory`, amount: 5, memo: 'é\u202e' };
    const { context } = approvalRequest(
      { callId: 'c1', server: 's', arguments: args },
      { name: 'transfer', inputSchema: transfer },
      { gate: 'always', annotations: 'ignore' },
    );
    assert.equal(argumentsDigest(JSON.parse(argumentsShown(args))), context.digest);
  });
});
