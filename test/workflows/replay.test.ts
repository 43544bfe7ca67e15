import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { dataConverterOf, EncryptionCodec, generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { prebuiltBundle, workflowsPath } from '../../src/worker/workflow-code.js';
import { durableMcpSinks } from '../../src/telemetry/metrics.js';
import { historiesDir } from '../helpers/history.js';
import { quietRuntime } from '../helpers/temporal.js';

const files = readdirSync(historiesDir)
  .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
  .sort();
const idsPath = join(historiesDir, 'workflow-ids.json');
const workflowIds: Record<string, string> = existsSync(idsPath) ? JSON.parse(readFileSync(idsPath, 'utf8')) : {};

describe('committed workflow histories replay with the current workflow code', () => {
  it('has the histories of the accept, expiry, release and restart paths', () => {
    for (const name of ['accept', 'expiry', 'release-hold-for', 'release-server-gave-up', 'restart-graceful', 'restart-sigkill']) {
      assert.ok(files.includes(`${name}.json`), `test/histories/${name}.json is committed`);
    }
  });

  it('asks patched() only through the registry of versions (src/workflows/versions.ts)', () => {
    const workflows = join(historiesDir, '..', '..', 'src', 'workflows');
    const callers = readdirSync(workflows, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== 'versions.ts')
      .filter((f) => /\bpatched\(|deprecatePatch\(/.test(readFileSync(join(workflows, f), 'utf8')))
      .map((f) => relative(workflows, join(workflows, f)));
    assert.deepEqual(callers, [], 'a workflow asks since(Versions.X), never patched() itself');
  });

  // Recorded before encryption: plaintext payloads pass through a worker that has a key.
  for (const encrypted of [false, true]) {
    it(`replays every history without nondeterminism${encrypted ? ', with a worker that has an encryption key (plaintext passes through)' : ''}`, async () => {
      quietRuntime();
      const bundle = prebuiltBundle();
      const histories = files.map((f) => ({
        workflowId: workflowIds[f.replace(/\.json$/, '')] ?? f.replace(/\.json$/, ''),
        history: historyFromJSON(JSON.parse(readFileSync(join(historiesDir, f), 'utf8'))),
      }));
      const dataConverter = encrypted ? dataConverterOf(new EncryptionCodec(parseEncryptionKeys(generateEncryptionKey('k1'), 'test'))) : undefined;
      const failures: string[] = [];
      let count = 0;
      for await (const result of Worker.runReplayHistories(
        { ...(bundle ? { workflowBundle: bundle } : { workflowsPath }), sinks: durableMcpSinks(), ...(dataConverter ? { dataConverter } : {}) },
        histories,
      )) {
        count++;
        if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
      }
      assert.equal(count, files.length);
      assert.deepEqual(failures, []);
    });
  }
});
