import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { causeChain, causeMessages } from '../../src/contract/causes.js';
import { describeKind, isPlainObject, jsonByteLength, preview, utf8ByteLength } from '../../src/contract/json.js';

describe('json helpers (json.ts)', () => {
  it('isPlainObject: {}-like objects only', () => {
    assert.ok(isPlainObject({}) && isPlainObject(Object.create(null)));
    for (const v of [null, [], new Date(0), new Map(), 'x', 1, undefined]) assert.equal(isPlainObject(v), false);
  });
  it('utf8ByteLength and jsonByteLength count UTF-8 bytes as TextEncoder does', () => {
    for (const s of ['', 'a', 'é', '€', '😀', 'a😀b', '\ud800', 'x\udc00y', '\ud800\ud800']) {
      assert.equal(utf8ByteLength(s), new TextEncoder().encode(s).length, JSON.stringify(s));
    }
    assert.equal(jsonByteLength({ a: 'é' }), 10);
    assert.equal(jsonByteLength(undefined), 0);
  });
  it('preview: readable by default, cut at 60', () => {
    assert.equal(preview(-0), '-0');
    assert.equal(preview(Number.NaN), 'NaN');
    assert.equal(preview(5n), '5n');
    assert.equal(preview(undefined), 'undefined');
    assert.equal(
      preview(() => 1),
      'function',
    );
    assert.equal(preview('a'.repeat(61)), `"${'a'.repeat(60)}…"`);
    assert.equal(preview([1, 'x']), '[1,"x"]');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    assert.equal(preview(cycle), 'object');
    assert.equal(preview('abcdef', { max: 3 }), '"abc…"');
  });
  it('preview raw: the JSON text, cut anywhere', () => {
    assert.equal(preview('a'.repeat(61), { raw: true }), `"${'a'.repeat(59)}…`);
    assert.equal(preview(-0, { raw: true }), '0');
    assert.equal(preview(undefined, { raw: true }), 'undefined');
    assert.equal(preview({ a: 'x'.repeat(100) }, { raw: true, max: Infinity }), JSON.stringify({ a: 'x'.repeat(100) }));
  });
  it("describeKind: bare, or with the answer check's articles", () => {
    assert.deepEqual(
      [null, [], new Date(0), 'x', 1].map((v) => describeKind(v)),
      ['null', 'array', 'date', 'string', 'number'],
    );
    assert.deepEqual(
      [null, [], 'x', 1, true].map((v) => describeKind(v, { article: true })),
      ['null', 'an array', 'a string', 'number', 'boolean'],
    );
  });
});

describe('cause chains (causes.ts)', () => {
  it('walks at most `depth` causes and joins the first five messages', () => {
    let e: Error = new Error('m0');
    for (let i = 1; i < 8; i++) e = new Error(`m${i}`, { cause: e });
    assert.equal(causeChain(e).length, 5);
    assert.equal(causeChain(e, 10).length, 8);
    assert.equal(causeMessages(e), 'm7: m6: m5: m4: m3');
    assert.equal(causeMessages(new Error('', { cause: new Error('inner') })), 'inner');
    assert.deepEqual(causeChain(undefined), []);
  });
});
