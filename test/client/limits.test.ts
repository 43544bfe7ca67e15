import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { isClientError } from '../../src/client/index.js';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { suiteEnvironment } from '../helpers/temporal.js';
import { waitForPendingDetails } from '../helpers/watch.js';

const cli = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
function run(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Issue #16: an update Temporal refuses by a per-run limit says which limit and what to do. A dev server
 * whose runs allow one update in total (history.maxTotalUpdates=1) stands in for a run past its 2,000: the
 * internal elicit update takes the only one, so `answer` through submitAnswer is refused.
 */
describe('updates refused by a Temporal limit', () => {
  const suite = suiteEnvironment({ name: 'limits', serverArgs: ['--dynamic-config-value', 'history.maxTotalUpdates=1'] });

  it('the client and the CLI name the limit and give the `answer` signal command, which then works', async () => {
    const c = suite.durable;
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    const [pending] = await waitForPendingDetails(c, handle.workflowId);
    const id = pending.request.id;

    const err = await c.accept(handle.workflowId, id, { name: 'Ada' }).then(
      () => assert.fail('the update should be refused'),
      (e: unknown) => e,
    );
    assert.ok(isClientError(err, 'UpdateLimit'), String(err));
    assert.equal(err.limit, 'total-updates');
    assert.match(err.message, /limit on the total number of updates \(history\.maxTotalUpdates, default 2,000\)/);
    assert.match(err.message, /`answer` signal/);

    const printed = await run(process.execPath, [cli, 'answer', handle.workflowId, id, '--data', '{"name":"Ada"}'], {
      TEMPORAL_ADDRESS: suite.env.address,
      TEMPORAL_NAMESPACE: 'default',
    });
    assert.equal(printed.code, 5, 'the documented exit code of a refused answer');
    assert.ok(!/ServiceError|Workflow Update failed/.test(printed.stderr), printed.stderr);
    assert.match(printed.stderr, /^durable-mcp: workflow ".*": this run has reached Temporal's limit on the total number of updates/);

    // What to do: the signal command in the message, run as printed (with this server's address).
    const command = /temporal workflow signal --workflow-id (\S+) --name answer --input '(.*)'/.exec(printed.stderr);
    assert.ok(command, printed.stderr);
    const sent = await run(findTemporalBinary('cli').path!, [
      'workflow',
      'signal',
      '--address',
      suite.env.address,
      '--workflow-id',
      command[1],
      '--name',
      'answer',
      '--input',
      command[2],
    ]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.deepEqual(await c.result(handle.workflowId), { output: 'hello Ada', isError: false });
  });
});
