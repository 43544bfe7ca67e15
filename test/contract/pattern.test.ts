/**
 * Issue #31: a schema's `pattern` runs in a linear-time engine. The catastrophic `^(a+)+$` meets a 60,000
 * character default and a 100,000 character answer (with a backtracking engine, 30 characters take seconds and each one more
 * doubles it: these would never finish); what a linear engine cannot run, or what is too large, is refused
 * naming the field; and the translation keeps ECMAScript's meaning (compared with V8 on the same inputs).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitElicitation, checkAnswer, INVALID_PARAMS } from '../../src/contract/index.js';
import type { Request } from '../../src/contract/index.js';
import { compilePattern, MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM, PATTERN_WORK_BOUND } from '../../src/contract/pattern.js';

const form = (properties: Record<string, unknown>) => ({ mode: 'form', message: 'Please answer', requestedSchema: { type: 'object', properties } });
const CATASTROPHIC = '^(a+)+$';
const LONG = 100_000;
/** A default travels in the elicitation, which is bounded (MAX_ELICITATION_BYTES, 64 KiB). */
const LONG_DEFAULT = 60_000;

function refusal(properties: Record<string, unknown>): string {
  const a = admitElicitation(form(properties));
  assert.equal(a.ok, false, `expected a refusal, got ${JSON.stringify(a).slice(0, 300)}`);
  if (a.ok) throw new Error('unreachable');
  assert.equal(a.code, INVALID_PARAMS);
  return a.message;
}

function inputRequest(schema: unknown): Request {
  return { id: 'r1', kind: 'input', data: { message: 'Please answer', schema } } as unknown as Request;
}

describe('patterns: linear time on a catastrophic pattern', () => {
  it(`a ${LONG_DEFAULT.toLocaleString('en')}-character default that misses ^(a+)+$ is refused, naming the field and its default`, () => {
    const message = refusal({ word: { type: 'string', pattern: CATASTROPHIC, default: `${'a'.repeat(LONG_DEFAULT)}!` } });
    assert.match(message, /property "word" has a default its own field rejects \(must match pattern "\^\(a\+\)\+\$"/);
  });

  it('a long default that matches it is admitted', () => {
    assert.ok(admitElicitation(form({ word: { type: 'string', pattern: CATASTROPHIC, default: 'a'.repeat(LONG_DEFAULT) } })).ok);
  });

  it('a person’s long answer is checked against it: refused naming the field, and a matching one accepted', () => {
    const request = inputRequest({ type: 'object', properties: { word: { type: 'string', pattern: CATASTROPHIC } }, required: ['word'] });
    const bad = checkAnswer({ id: 'r1', ok: true, data: { word: `${'a'.repeat(LONG)}!` } }, request);
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.reason : '', /field "word": must match pattern "\^\(a\+\)\+\$"/);
    const good = checkAnswer({ id: 'r1', ok: true, data: { word: 'a'.repeat(LONG) } }, request);
    assert.deepEqual(good, { ok: true, answer: { id: 'r1', ok: true, data: { word: 'a'.repeat(LONG) } } });
  });
});

describe('patterns: what the linear-time engine cannot run is refused at admission, naming the field', () => {
  const cases: Array<[string, string, string]> = [
    ['a backreference', '^(a)\\1$', 'uses a backreference (\\1), which a linear-time engine cannot run'],
    ['a named backreference', '^(?<x>a)\\k<x>$', 'named backreference'],
    ['a lookahead', '^(?=a)', 'uses a lookahead'],
    ['a negative lookahead', '^(?!admin)', 'uses a lookahead'],
    ['a lookbehind', '(?<=a)b', 'uses a lookbehind'],
    ['a long Unicode property name', '^\\p{Letter}+$', 'the Unicode property \\p{Letter}'],
    ['a repeat count over 1000', 'a{1001}', 'invalid repeat count'],
    ['a pattern over the length bound', 'a'.repeat(MAX_PATTERN_LENGTH + 1), `over the bound of ${MAX_PATTERN_LENGTH}`],
    ['a program over the size bound', '(?:a|aa|aaa|b){1,900}', `over the bound of ${MAX_PATTERN_PROGRAM}`],
  ];
  for (const [what, pattern, fragment] of cases) {
    it(`${what}: ${pattern.slice(0, 40)}`, () => {
      const message = refusal({ code: { type: 'string', pattern } });
      assert.ok(message.includes('property "code" unsupported schema: pattern '), message);
      assert.ok(message.includes(fragment), `"${message}" should mention ${fragment}`);
    });
  }
  it('a pattern that is not ECMAScript in unicode mode is still refused as invalid', () => {
    assert.match(
      refusal({ code: { type: 'string', pattern: '\\-[' } }),
      /property "code" has an invalid schema: pattern "\\\\-\[" is not a valid regular expression \(unicode mode\)/,
    );
  });
  it('a text too long for the work bound is refused naming its length, not run', () => {
    const compiled = compilePattern('[ab]*a[ab]{1000}c');
    assert.ok(compiled.ok);
    if (!compiled.ok) return;
    assert.equal(compiled.pattern.maxText, Math.floor(PATTERN_WORK_BOUND / 1006));
    const request = inputRequest({ type: 'object', properties: { s: { type: 'string', pattern: compiled.pattern.source } } });
    const check = checkAnswer({ id: 'r1', ok: true, data: { s: 'ab'.repeat(compiled.pattern.maxText) } }, request);
    assert.match(!check.ok ? check.reason : '', /field "s": is too long to check against pattern .*: \d+ UTF-16 code units, at most \d+/);
  });
});

describe('patterns: the translation keeps ECMAScript’s meaning', () => {
  // Each pattern exercises a difference between ECMAScript and RE2 syntax; each text is compared with V8.
  const patterns = [
    '^.$',
    '^.+$',
    '^\\s+$',
    '^\\S+$',
    '^[\\s\\S]$',
    '^[\\S]$',
    '^[a\\S]$',
    '^[^\\S]$',
    '^[^]$',
    '[]',
    '\\bab\\b',
    '^\\D\\W$',
    '\\u00e9',
    '\\u{1F600}',
    '\\uD83D\\uDE00',
    '^[😀-😂]$',
    '\\x41',
    '\\cJ',
    '[\\b]',
    '\\0',
    '\\v',
    '^(?<n>a)b',
    '[\\u0041-\\u005A]+',
    '^[^\\d\\s]+$',
    '\\P{L}',
    '[\\p{L}\\d]',
    '^\\p{Lu}',
    '^\\p{sc=Greek}+$',
    '^\\p{Script=Latin}+$',
    '[\\-a]',
    '[a-]',
    '[\\[]',
    '[[]',
    '^[\\w-]+$',
    '\\/',
    '^[\\^]$',
    '[.]',
    '\\.',
    'a$',
    '^$',
    'x|y',
    '^(ab)+$',
    '^[a-z]{2,3}$',
  ];
  const texts = [
    '',
    'a',
    'ab',
    'ab cd',
    'A',
    'é',
    '😀',
    '😁',
    'a😀',
    'αβγ',
    ' ',
    '\t',
    '\n',
    '\r',
    '\v',
    '\u2028',
    '\u2029',
    '\u00a0',
    '\ufeff',
    '\u3000',
    '\u0085',
    '\u200b',
    '\b',
    '-',
    '[',
    '/',
    '.',
    '^',
    'a\n',
    '0',
    '\u0000',
    'Z9',
    'xyz',
    'abab',
    'AZ',
    '\uD800',
    '\uDC00x',
    'a\uFFFD',
  ];
  for (const p of patterns) {
    it(`${p} gives V8's verdict on ${texts.length} texts`, () => {
      const compiled = compilePattern(p);
      assert.ok(compiled.ok, JSON.stringify(compiled));
      if (!compiled.ok) return;
      const js = new RegExp(p, 'u');
      for (const t of texts) assert.equal(compiled.pattern.test(t), js.test(t), `${JSON.stringify(p)} on ${JSON.stringify(t)}`);
    });
  }
});
