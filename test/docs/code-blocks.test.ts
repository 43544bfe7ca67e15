/**
 * Every documentation code block meant to be run is run, on the Node that runs the suite (CI runs it on each
 * supported line). A block is marked by an HTML comment line `<!-- test: NAME -->` directly above its fence, in
 * README.md or docs/*.md, so the mark moves with the block. A `js` block is a node:test file of a user project:
 * it runs in examples/testing (its workflows.js, the packed package installed), as `test/NAME.test.js`.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installUserProject, projectRoot, runUserProjectTestFiles, testCounts } from '../helpers/pack.js';

export interface MarkedBlock {
  name: string;
  file: string;
  line: number;
  lang: string;
  code: string;
}

const MARK = /^<!-- test: ([a-z0-9-]+) -->$/;

/**
 * The marked blocks of one Markdown text; a mark not directly above a fence is an error naming its line. A mark
 * inside a fenced block (an example of one, as in docs/conformance.md) is text, not a mark.
 */
export function markedBlocks(text: string, file: string): MarkedBlock[] {
  const lines = text.split('\n');
  const blocks: MarkedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(```+)(\w*)\s*$/.exec(lines[i]);
    if (fence) {
      const end = lines.findIndex((l, j) => j > i && l.trim() === fence[1]);
      if (end < 0) throw new Error(`${file}:${i + 1}: a code block is not closed`);
      const mark = MARK.exec(lines[i - 1]?.trim() ?? '');
      if (mark) blocks.push({ name: mark[1], file, line: i + 1, lang: fence[2], code: lines.slice(i + 1, end).join('\n') + '\n' });
      i = end;
      continue;
    }
    const mark = MARK.exec(lines[i].trim());
    if (mark && !/^```/.test(lines[i + 1] ?? '')) throw new Error(`${file}:${i + 1}: "<!-- test: ${mark[1]} -->" must be directly above a fenced code block`);
  }
  return blocks;
}

function documentationFiles(): string[] {
  const docs = join(projectRoot, 'docs');
  const pages = existsSync(docs) ? readdirSync(docs).filter((f) => f.endsWith('.md')) : [];
  return [join(projectRoot, 'README.md'), ...pages.map((f) => join(docs, f))];
}

const blocks = documentationFiles().flatMap((f) => markedBlocks(readFileSync(f, 'utf8'), f.slice(projectRoot.length + 1)));

describe('documentation code blocks', () => {
  it('finds each mark above its block (not those inside a block), names unique, the node:test example among them', () => {
    assert.throws(() => markedBlocks('<!-- test: x -->\ntext\n', 'a.md'), /a\.md:1: .* directly above a fenced code block/);
    assert.deepEqual(markedBlocks('<!-- test: x -->\n```js\nrun();\n```\n', 'a.md'), [{ name: 'x', file: 'a.md', line: 2, lang: 'js', code: 'run();\n' }]);
    assert.deepEqual(markedBlocks('````md\n<!-- test: x -->\n```js\n```\n````\n', 'a.md'), [], 'a mark inside a fenced block is an example');
    const names = blocks.map((b) => b.name);
    assert.deepEqual(names, [...new Set(names)], 'each mark names its block once');
    assert.ok(names.includes('node-test-example'), `the README's node:test example is marked (found: ${names.join(', ') || 'none'})`);
    for (const b of blocks) assert.equal(b.lang, 'js', `${b.file}:${b.line}: no runner for a "${b.lang}" block (${b.name})`);
  });

  it(`runs every marked js block as a node:test file of examples/testing, on Node ${process.versions.node}`, { timeout: 900_000 }, () => {
    const js = blocks.filter((b) => b.lang === 'js');
    const dir = installUserProject(join(projectRoot, 'examples', 'testing'));
    for (const b of js) writeFileSync(join(dir, 'test', `${b.name}.test.js`), b.code);
    const { status, out } = runUserProjectTestFiles(
      dir,
      js.map((b) => `test/${b.name}.test.js`),
    );
    assert.equal(status, 0, `a documentation block failed (${js.map((b) => `${b.file}:${b.line} ${b.name}`).join(', ')}):\n${out.slice(-6000)}`);
    const { pass, fail } = testCounts(out);
    assert.equal(fail, 0);
    assert.ok(pass >= js.length, `every block's tests ran (${pass} passed):\n${out.slice(-2000)}`);
  });
});
