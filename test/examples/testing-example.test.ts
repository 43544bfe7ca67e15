import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installUserProject, projectRoot, runUserProjectTests, testCounts } from '../helpers/pack.js';

describe('examples/testing: a user project tests its own workflow with durable-mcp/testing', () => {
  it(
    'installs the packed package and its node:test suite passes (accept, decline, restart, expiry time-skipped, replay; both eras)',
    { timeout: 900_000 },
    () => {
      const dir = installUserProject(join(projectRoot, 'examples', 'testing'));
      const { status, out } = runUserProjectTests(dir);
      assert.equal(status, 0, `the example's tests failed:\n${out.slice(-6000)}`);
      const { pass, fail } = testCounts(out);
      assert.equal(fail, 0);
      assert.ok(pass >= 8, `every test of the example ran (${pass} passed)`);
    },
  );
});
