import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';

const scratch = new URL('./scratch.js', import.meta.url).href;
/** A node process that makes a scratch folder with a file in it, prints its path and exits. */
function makeOne(env: Record<string, string> = {}): string {
  const code = `import { writeFileSync } from 'node:fs'; import { join } from 'node:path'; import { scratchDir } from ${JSON.stringify(scratch)};
    const dir = scratchDir('durable-mcp-scratch-test-'); writeFileSync(join(dir, 'big'), 'x'.repeat(1 << 20)); console.log(dir);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

describe('a test process removes its temp folders', () => {
  it('removes a scratch folder, with what was written in it, when the process exits', () => {
    const dir = makeOne();
    assert.ok(dir.includes('durable-mcp-scratch-test-'), dir);
    assert.equal(existsSync(dir), false, `${dir} is left behind`);
  });

  it('keeps it with DURABLE_MCP_KEEP_TEMP=1 (to look at after a failure)', () => {
    const dir = makeOne({ DURABLE_MCP_KEEP_TEMP: '1' });
    try {
      assert.equal(existsSync(dir), true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
