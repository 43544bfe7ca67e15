import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findTemporalBinary } from '../../src/temporal/binaries.js';
import { installUserProject, projectRoot } from '../helpers/pack.js';

describe('examples/testing: a user project tests its own workflow with durable-mcp/testing', () => {
  it('installs the packed package and its node:test suite passes (accept, decline, restart, expiry time-skipped, replay; both eras)', { timeout: 900_000 }, () => {
    const dir = installUserProject(join(projectRoot, 'examples', 'testing'));
    // Not a child of this test run: without NODE_TEST_CONTEXT its runner prints its own TAP summary.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const r = spawnSync('npm', ['test'], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...env,
        // The binaries this machine has, as a user would point at theirs: nothing is downloaded.
        TEMPORAL_CLI_PATH: findTemporalBinary('cli').path!,
        TEMPORAL_TEST_SERVER_PATH: findTemporalBinary('test-server').path!,
        NODE_OPTIONS: '',
      },
      timeout: 840_000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.status, 0, `the example's tests failed:\n${out.slice(-6000)}`);
    const pass = Number(/# pass (\d+)/.exec(out)?.[1]);
    const fail = Number(/# fail (\d+)/.exec(out)?.[1]);
    assert.equal(fail, 0);
    assert.ok(pass >= 8, `every test of the example ran (${pass} passed)`);
  });
});
