/** The size check of src/ (scripts/check-sizes.ts): what counts as a file or a function over its limit, and their names. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXCEPTIONS, MAX_FILE_LINES, MAX_FUNCTION_LINES, oversizeIn, oversizeInSrc } from '../../scripts/check-sizes.js';

const lines = (n: number, text = 'x++;') => Array.from({ length: n }, () => `  ${text}`).join('\n');

describe('check-sizes', () => {
  it('names a function over the limit by its own name, its variable or its method, and leaves one at the limit alone', () => {
    const atLimit = `function fits() {\n${lines(MAX_FUNCTION_LINES - 2)}\n}\n`;
    const over = `function tooLong() {\n${lines(MAX_FUNCTION_LINES - 1)}\n}\n`;
    const arrow = `const viaArrow = () => {\n${lines(MAX_FUNCTION_LINES)}\n};\n`;
    const method = `class K {\n  run() {\n${lines(MAX_FUNCTION_LINES)}\n  }\n}\n`;
    // Four functions of about 120 lines make a file over its limit too: only the functions are looked at here.
    const found = oversizeIn('a.ts', atLimit + over + arrow + method).filter((o) => o.key.includes('#'));
    assert.deepEqual(
      found.map((o) => o.key),
      ['a.ts#tooLong', 'a.ts#viaArrow', 'a.ts#run'],
    );
    assert.equal(found[0]!.lines, MAX_FUNCTION_LINES + 1);
    assert.equal(found[0]!.at, `a.ts:${MAX_FUNCTION_LINES + 1}`);
  });

  it('counts a file over the limit (a last newline is not a line)', () => {
    assert.deepEqual(oversizeIn('b.ts', `${lines(MAX_FILE_LINES, 'let a;')}\n`), []);
    assert.deepEqual(
      oversizeIn('b.ts', `${lines(MAX_FILE_LINES + 1, 'let a;')}\n`).map((o) => [o.key, o.lines]),
      [['b.ts', MAX_FILE_LINES + 1]],
    );
  });

  it('finds no file in src/ over 400 lines and no function over 120, but the named exceptions', () => {
    const over = oversizeInSrc().filter((o) => EXCEPTIONS[o.key] === undefined);
    assert.deepEqual(
      over.map((o) => `${o.at} ${o.key}: ${o.lines} lines (limit ${o.limit})`),
      [],
    );
  });
});
