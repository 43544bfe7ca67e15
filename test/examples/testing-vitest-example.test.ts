import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installUserProject, projectRoot, runUserProjectTests } from '../helpers/pack.js';

const example = join(projectRoot, 'examples', 'testing-vitest');
const testFile = join(example, 'test', 'decline.test.ts');

/** The code block of the "With vitest" example of the testing page (docs/testing.md, linked from the README). */
function readmeVitestExample(): string {
  const readme = readFileSync(join(projectRoot, 'docs', 'testing.md'), 'utf8');
  const at = readme.indexOf('With vitest (');
  assert.ok(at >= 0, 'the testing page has a vitest example');
  const block = /```ts\n([\s\S]*?)```\n/.exec(readme.slice(at));
  assert.ok(block, 'the vitest example is a ```ts block');
  return block[1];
}

describe('examples/testing-vitest: the vitest example of docs/testing.md, as a user project of its own', () => {
  it("the testing page's vitest example is the example project's test file, word for word", () => {
    assert.equal(readmeVitestExample(), readFileSync(testFile, 'utf8'));
  });

  it('installs the packed package and vitest from npm, and its vitest suite passes', { timeout: 900_000 }, () => {
    const dir = installUserProject(example);
    const { status, out } = runUserProjectTests(dir, ['--reporter=verbose'], { NO_COLOR: '1' });
    assert.equal(status, 0, `the example's vitest run failed:\n${out.slice(-6000)}`);
    assert.match(out, /✓ .*a decline reaches the server as decline/, out.slice(-3000));
    assert.match(out, /Tests\s+1 passed \(1\)/, out.slice(-3000));
  });
});
