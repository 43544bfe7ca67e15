/**
 * B9: the time a person's approval adds to a tool call (docs/approvals.md), against the same call without one, next to
 * what one elicitation adds (measured as B1 measures it, end to end): an approval should add no more than an
 * elicitation does.
 */
import { benchWorkerEntry, botStartAndAnswer, now, p50, p95, round, scaled, startWorkerProcess, type BenchResult } from './lib.js';
import { HOLD_LONG, askInput, benchSetup, callTool, echoInput, expectOutput, taskQueueFor, wid, type Benchmark } from './setup.js';

/** B9's target: what an approval adds, at most what an elicitation adds. */
export const B9_TARGET_RATIO = 1;

export const b9: Benchmark = {
  id: 'B9',
  name: 'approval round trip',
  budgetS: 60,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b9');
    const taskQueue = taskQueueFor('b9');
    await startWorkerProcess(cleanup, { entry: benchWorkerEntry, address: env.address, taskQueue, configPath: fx.configPath });
    const client = env.client;
    const warmup = 3;
    const n = scaled(40, 5);
    const echo: number[] = [];
    const approved: number[] = [];
    const ask: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const keep = i >= warmup;
      // (1) the call without approval
      let t = now();
      expectOutput(await (await callTool(client, taskQueue, echoInput, 'b9-echo')).result(), 'echo: x', 'echo');
      if (keep) echo.push(now() - t);
      // (2) the same call with an approval, approved by a bot told in the workflow task that records it (as B1's)
      t = now();
      const bot = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b9-approve'), input: { ...echoInput, approval: 'always' } }, { text: 'x' });
      expectOutput(await bot.handle.result(), 'echo: x', 'approved echo');
      if (keep) approved.push(now() - t);
      // (3) a call with one elicitation, answered the same way (B1's end to end)
      t = now();
      const asked = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b9-ask'), input: askInput(HOLD_LONG) }, { name: 'Ada' });
      expectOutput(await asked.handle.result(), 'hello Ada', 'ask_name');
      if (keep) ask.push(now() - t);
    }
    const approvalAdded = p50(approved) - p50(echo);
    const elicitationAdded = p50(ask) - p50(echo);
    const ratio = approvalAdded / elicitationAdded;
    return [
      {
        id: 'B9',
        name: 'approval round trip',
        measured: { 'approval added p50 ms': round(approvalAdded), 'approved call p50 ms': round(p50(approved)), 'approved call p95 ms': round(p95(approved)) },
        baseline: { 'elicitation added p50 ms': round(elicitationAdded), 'call p50 ms': round(p50(echo)) },
        ratio: round(ratio),
        ratioLabel: 'approval added p50 / elicitation added p50',
        target: `≤ ${B9_TARGET_RATIO}×`,
        met: ratio <= B9_TARGET_RATIO,
        note:
          `mcpToolCall echo through a worker process, start to result: without approval; with \`approval: "always"\`, approved ` +
          `by a bot that starts the call together with a \`waitForPending\` update and answers with \`submitAnswer\` (B1's bot); ` +
          `and ask_name (one elicitation, holdFor 10 min) answered by the same bot. Added = p50(with) − p50(echo). An approval ` +
          `runs the activity twice (the gate, then the approved call) where an elicitation waits inside one attempt. Sequential, interleaved samples.`,
        details: { 'echo p95 ms': round(p95(echo)), 'ask_name p50 ms': round(p50(ask)), 'ask_name p95 ms': round(p95(ask)) },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      } satisfies BenchResult,
    ];
  },
};
