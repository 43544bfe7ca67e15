/** The import-circle check of src/ (scripts/check-cycles.ts): what it counts as a circle, and src/ itself. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { ALLOWED_CIRCLES, checkCycles, circleKey, circlesOf, describeCircle, importGraph, importsOf } from '../../scripts/check-cycles.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'cycles-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A tree of source files under a new directory; returns its path. */
function tree(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('check-cycles', () => {
  it('reads every kind of import, with its line and whether only types come through it', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, e } from './e.js';",
      "export { f } from './f.js';",
      "export type { G } from './g.js';",
      "export * from './h.js';",
      "import './side.js';",
      'type L = import("./l.js").L;',
      "const m = await import('./m.js');",
      "import n = require('./n.cjs');",
      '// import { x } from "./comment.js";',
      'const s = "import { y } from \'./string.js\'";',
    ].join('\n');
    assert.deepEqual(
      importsOf('x.ts', text).map((r) => `${r.line} ${r.spec}${r.typeOnly ? ' type' : ''}`),
      [
        '1 ./a.js',
        '2 ./b.js type',
        '3 ./c.js type',
        '4 ./e.js',
        '5 ./f.js',
        '6 ./g.js type',
        '7 ./h.js',
        '8 ./side.js',
        '9 ./l.js type',
        '10 ./m.js',
        '11 ./n.cjs',
      ],
    );
  });

  it('reports a circle of values, a circle of types only and one through an index.js, and nothing in a tree without one', () => {
    const dir = tree('mixed', {
      'a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'b.ts': "\nimport { a } from './a.js';\nexport const b = 1;\nexport const c = () => a;\n",
      'types/x.ts': "import type { Y } from './y.js';\nexport interface X { y?: Y }\n",
      'types/y.ts': "export interface Y { x?: import('./x.js').X }\n",
      'dir/index.ts': "export { leaf } from '../leaf.js';\nexport type { Z } from '../z.js';\n",
      'z.ts': "import { leaf } from './dir/index.js';\nexport type Z = typeof leaf;\n",
      'leaf.ts': 'export const leaf = 1;\n',
      'codec.cts': "import type { A } from './uses-codec.js';\nexport type C = A;\n",
      'uses-codec.ts': "import type { C } from './codec.cjs';\nexport type A = C;\nimport { leaf } from 'node:fs';\n",
      'self.ts': "import type { S } from './self.js';\nexport type S = string | S[];\n",
    });
    const graph = importGraph(dir);
    assert.deepEqual(circlesOf(graph).map(circleKey), [
      'a.ts + b.ts',
      'codec.cts + uses-codec.ts',
      'dir/index.ts + z.ts',
      'self.ts',
      'types/x.ts + types/y.ts',
    ]);
    assert.deepEqual(describeCircle(graph, ['a.ts', 'b.ts']), ['circle of 2 files: a.ts, b.ts', '  a.ts:1 -> b.ts', '  b.ts:2 -> a.ts']);
    assert.deepEqual(describeCircle(graph, ['types/x.ts', 'types/y.ts']).slice(1), [
      '  types/x.ts:1 -> types/y.ts (types only)',
      '  types/y.ts:1 -> types/x.ts (types only)',
    ]);

    const none = tree('none', {
      'a.ts': "import { b } from './b.js';\nimport type { C } from './c.js';\nexport const a: C = b;\n",
      'b.ts': "import type { C } from './c.js';\nexport const b: C = 1;\n",
      'c.ts': "import { z } from 'elsewhere';\nexport type C = number;\nexport const d = z;\n",
    });
    assert.deepEqual(circlesOf(importGraph(none)), []);
  });

  it('fails on a circle not allowed and on an allowed circle that is gone, and passes when the list matches', () => {
    const dir = tree('allowed', {
      'a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
      'b.ts': "import type { A } from './a.js';\nexport type B = A;\n",
    });
    const graph = importGraph(dir);
    const notAllowed = checkCycles(graph, {});
    assert.deepEqual(notAllowed.unexpected.map(circleKey), ['a.ts + b.ts']);
    const gone = checkCycles(graph, { 'a.ts + b.ts': 'known', 'c.ts + d.ts': 'fixed since' });
    assert.deepEqual([gone.unexpected, gone.stale], [[], ['c.ts + d.ts']]);
    const matches = checkCycles(graph, { 'a.ts + b.ts': 'known' });
    assert.deepEqual([matches.unexpected, matches.stale], [[], []]);
  });

  it('finds in src/ no circle outside the allowed list, and every allowed circle still there', () => {
    const graph = importGraph(join(root, 'src'), root);
    const report = checkCycles(graph);
    assert.deepEqual(
      report.unexpected.map((c) => describeCircle(graph, c).join('\n')),
      [],
    );
    assert.deepEqual(report.stale, [], 'an allowed circle is gone: remove it from ALLOWED_CIRCLES');
    assert.equal(report.circles.length, Object.keys(ALLOWED_CIRCLES).length);
  });
});
