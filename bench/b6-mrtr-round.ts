/** B6: a modern-era (MCP 2026-07-28) round as a person sees it, against a plain call through the same worker. */
import { mcpToolCall } from '../src/workflows/index.js';
import { botAnswer, now, p50, p95, round, scaled } from './lib.js';
import { readFixtureLog } from '../scripts/fixture-log.js';
import { modernSetup, wid, type Benchmark } from './setup.js';

export const b6: Benchmark = {
  id: 'B6',
  name: 'MRTR round after the answer',
  budgetS: 90,
  async run(cleanup) {
    const t0 = now();
    const { env, taskQueue, logPath } = await modernSetup(cleanup, 'b6');
    const client = env.client;
    const warmup = 3;
    const n = scaled(40, 5);
    const plain: number[] = [];
    const round2: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      // Baseline: a plain tool call through the same worker: start → result (one activity round trip).
      const ts = now();
      const p = await client.workflow.start(mcpToolCall, {
        taskQueue,
        workflowId: wid('b6-plain'),
        args: [{ server: 'm', tool: 'plain', arguments: { label: 'x' } }],
      });
      const pr = await p.result();
      const plainMs = now() - ts;
      if (pr.output !== 'plain x') throw new Error(`plain: unexpected result ${JSON.stringify(pr)}`);
      // The person's view of a round: from their `submitAnswer` returning to the tool's result.
      const h = await client.workflow.start(mcpToolCall, { taskQueue, workflowId: wid('b6-ask'), args: [{ server: 'm', tool: 'ask_name' }] });
      const bot = await botAnswer(h, { name: 'Ada' }, 20);
      const r = await h.result();
      const roundMs = now() - bot.answeredAt;
      if (r.output !== 'Hello Ada') throw new Error(`ask_name: unexpected result ${JSON.stringify(r)}`);
      if (i >= warmup) {
        plain.push(plainMs);
        round2.push(roundMs);
      }
    }
    const runs = readFixtureLog(logPath).filter((e) => e.event === 'tool' && e.tool === 'ask_name').length;
    const ratio = p50(round2) / p50(plain);
    return [
      {
        id: 'B6',
        name: 'MRTR round as a person sees it',
        measured: { 'answer → result p50 ms': round(p50(round2), 1), 'answer → result p95 ms': round(p95(round2), 1) },
        baseline: { 'plain call start → result p50 ms': round(p50(plain), 1), 'plain call p95 ms': round(p95(plain), 1) },
        ratio: round(ratio),
        ratioLabel: 'p50 answer→result / p50 plain call',
        target: '≤ 1.5×',
        met: ratio <= 1.5,
        note:
          `A worker process (\`node dist/src/cli/worker-command.js\`) with the modern-era fixture server (\`test/fixtures/modern-server.ts\`, ` +
          `SDK v2, stdio). Per sample: a plain \`mcpToolCall\` of the tool \`plain\` (no input) from start to result — one ` +
          `activity round trip through the same worker — then an \`ask_name\` call: a bot polls \`pending\` every 20 ms, answers ` +
          `with \`submitAnswer\`, and the time from that update returning to \`result()\` resolving is the round as the person ` +
          `sees it (the workflow records the answer, schedules round 2, the activity calls the server with inputResponses, the ` +
          `workflow completes). ${warmup} warm-up samples are dropped.`,
        details: { 'ask_name tool-body runs (2 per call)': runs },
        samples: n,
        seconds: round((now() - t0) / 1000, 1),
      },
    ];
  },
};
