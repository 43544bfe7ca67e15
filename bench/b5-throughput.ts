/** B5: throughput with one elicitation per call (B5, and B5b with a roomier pool), against calls without. */
import { botStartAndAnswer, now, round, runLanes, scaled, startWorkerProcess, type BenchResult } from './lib.js';
import {
  HOLD_LONG,
  askInput,
  callTool,
  countEvents,
  deferFixtureCheck,
  echoInput,
  expectOutput,
  fixtureSetup,
  startDevServer,
  taskQueueFor,
  wid,
  type Benchmark,
} from './setup.js';

const B5_LANES = 50;

export const b5: Benchmark = {
  id: 'B5',
  name: 'throughput',
  budgetS: 150,
  async run(cleanup) {
    const t0 = now();
    const env = await startDevServer(cleanup);
    const client = env.client;
    const perRound = scaled(150, B5_LANES);

    const measure = async (label: string, fxOptions: Record<string, unknown>) => {
      const fx = fixtureSetup(`b5-${label}`, fxOptions);
      const details: Record<string, number | string> = {};
      deferFixtureCheck(cleanup, fx.logPath, details);
      const taskQueue = taskQueueFor(`b5-${label}`);
      const worker = await startWorkerProcess(cleanup, { address: env.address, taskQueue, configPath: fx.configPath });
      const echoOne = async () => {
        const h = await callTool(client, taskQueue, echoInput, 'b5-echo');
        expectOutput(await h.result(), 'echo: x', 'echo');
      };
      const askOne = async () => {
        const bot = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b5-ask'), input: askInput(HOLD_LONG) }, { name: 'Ada' });
        expectOutput(await bot.handle.result(), 'hello Ada', 'ask_name');
      };
      // Warm-up of both kinds at full concurrency.
      await runLanes(B5_LANES, B5_LANES, echoOne);
      await runLanes(B5_LANES, B5_LANES, askOne);
      const before = countEvents(fx.logPath);
      // Two alternating rounds of each, so drift affects both alike.
      let echoS = 0;
      let askS = 0;
      for (let r = 0; r < 2; r++) {
        let t = now();
        await runLanes(perRound, B5_LANES, echoOne);
        echoS += (now() - t) / 1000;
        t = now();
        await runLanes(perRound, B5_LANES, askOne);
        askS += (now() - t) / 1000;
      }
      const after = countEvents(fx.logPath);
      const total = perRound * 2;
      await worker.stop();
      Object.assign(details, {
        'ask_name runs of the tool': after.askCalls - before.askCalls,
        'ask_name calls': total,
        'MCP sessions opened (measured rounds)': after.sessions - before.sessions,
      });
      return { echoRate: total / echoS, askRate: total / askS, total, details };
    };

    const shipped = await measure('default', {});
    const roomy = await measure('roomy', { maxSessions: 2 * B5_LANES });
    const seconds = round((now() - t0) / 1000, 1);
    const row = (id: string, name: string, m: typeof shipped, config: string): BenchResult => ({
      id,
      name,
      measured: { 'with elicitation calls/s': round(m.askRate) },
      baseline: { 'without elicitation calls/s': round(m.echoRate) },
      ratio: round(m.askRate / m.echoRate),
      ratioLabel: 'with / without elicitation',
      target: '≥ 0.5',
      met: m.askRate / m.echoRate >= 0.5,
      note:
        `A worker process (${config}). ${B5_LANES} lanes each start an mcpToolCall and wait for its result, ${m.total} calls ` +
        `per kind in two alternating rounds after a warm-up of ${B5_LANES} of each. With elicitation: ask_name (holdFor ` +
        `10 min), each answered by the bot (its lane starts the call together with a \`waitForPending\` update, then sends the \`submitAnswer\` ` +
        `update). Without: echo. Throughput = calls / wall time of that kind's rounds. "ask_name runs of the tool" above ` +
        `"ask_name calls" are re-runs of released calls.`,
      details: m.details,
      samples: m.total,
      seconds,
    });
    return [
      row('B5', `throughput at ${B5_LANES} concurrent`, shipped, 'MCP config as shipped: maxSessions 32 per server, fewer than the 50 lanes'),
      row('B5b', `throughput at ${B5_LANES} concurrent, maxSessions ${2 * B5_LANES}`, roomy, `maxSessions ${2 * B5_LANES}, so no call waits for a session`),
    ];
  },
};
