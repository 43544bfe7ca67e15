/**
 * F6: a long pipeline keeps continuing as new with bounded state. 20,000 short sequential steps (the fixture's
 * echo, over stdio; 30 in the sample) on the shared dev server: the pipeline completes, and the input of
 * every continue-as-new is measured: what it carries besides the steps still to run (the state) stays flat,
 * and the whole input only shrinks.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mcpPipeline } from '../../src/workflows/index.js';
import { continueAsNewInputs } from '../helpers/history.js';
import { fixtureEntry, secs } from './lib.js';
import { inProcessWorker, workflowTaskFailures, type CaseContext, type FaultCase } from './suite.js';

export const f6: FaultCase = {
  id: 'F6',
  title: 'a 20,000-step pipeline continues as new with flat carried state',
  timeoutMs: (sample) => (sample ? 120_000 : 3_600_000),
  async run(ctx: CaseContext) {
    const n = ctx.sample ? 30 : 20_000;
    const { client } = await ctx.shared();
    const taskQueue = `${ctx.tag}q`;
    await inProcessWorker(ctx, taskQueue, { mcpServers: { fx: fixtureEntry('fx', ctx.tag, join(ctx.dir, 'fixture.jsonl')) } });
    const steps = Array.from({ length: n }, (_, i) => ({ name: `s${i}`, server: 'fx', tool: 'echo', arguments: { text: `${i}` } }));
    const t0 = Date.now();
    const handle = await client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `${ctx.tag}pipeline`,
      // The sample continues as new more often, so that it too crosses several runs.
      args: [{ steps, ...(ctx.sample ? { maxHistoryEvents: 40 } : {}) }],
    });
    const result = await handle.result();
    const took = Date.now() - t0;
    assert.equal(result.status, 'completed');
    assert.equal(result.steps[`s${n - 1}`].result?.output, `echo: ${n - 1}`);
    const carried = await continueAsNewInputs(handle);
    assert.equal(carried.length, result.runs - 1, 'every run but the last continued as new');
    assert.ok(carried.length >= 3, `continued as new several times (${carried.length})`);
    assert.equal((result.earlier?.completed ?? 0) + Object.keys(result.steps).length, n, 'every step is listed or counted');
    const stateBytes = carried.map((c) => JSON.stringify(c.input.state).length);
    const totalBytes = carried.map((c) => c.bytes);
    // Flat: the state carried at the last continue-as-new is no larger than at the first (a counter's digits aside).
    assert.ok(stateBytes.at(-1)! <= stateBytes[0] + 16, `state carried stays flat: ${stateBytes.join(', ')} bytes`);
    for (let i = 1; i < totalBytes.length; i++) assert.ok(totalBytes[i] <= totalBytes[i - 1], `the whole input only shrinks: ${totalBytes.join(', ')}`);
    for (const c of carried) assert.deepEqual(c.input.state.host.calls, [], 'no finished call carried');
    const failures = await workflowTaskFailures(handle);
    assert.deepEqual(failures, [], 'no workflow task failure');
    ctx.note(`state carried per continue-as-new (bytes): ${stateBytes.join(', ')}`);
    ctx.note(`whole continue-as-new input (bytes): ${totalBytes.join(', ')}`);
    return `${n} steps in ${secs(took)} (${Math.round(n / (took / 1000))} steps/s), ${result.runs} runs; carried state ${Math.min(...stateBytes)}–${Math.max(...stateBytes)} bytes per continue-as-new`;
  },
};
