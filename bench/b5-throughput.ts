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
/**
 * B5's target (issue #24: back above 0.55; 0.8 was aimed at). A call with one elicitation takes four workflow tasks
 * (start, the request recorded, the answer recorded, the result) and three updates; an echo takes two workflow tasks.
 * Measured per call on this machine (2 cores, everything local): about 45 ms of CPU with elicitation (Temporal server
 * 23, worker 16) against 30 for an echo (17, 9), so about 0.65 is what recording the request before it is shown and the
 * answer before it is passed on costs (B5b, where no call waits for a session, gives 0.65-0.68); 0.8 would need fewer
 * workflow tasks than the guarantees allow. With 32 sessions for 50 lanes, B5 came to 0.50-0.60 while a call waiting
 * for the bot gave its session up at once to a call waiting for one (11-20 of 600 calls closed their session and re-ran
 * the tool); the pool's handover grace (1 s) keeps the session for a quick answer: 0 re-runs, 0.61.
 */
const B5_TARGET = 0.55;
/** Rounds of each kind (150 calls each at BENCH_SCALE 1), alternating which goes first. */
const B5_ROUNDS = 4;

export const b5: Benchmark = {
  id: 'B5',
  name: 'throughput',
  budgetS: 240,
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
      // Alternating rounds of each, alternating which goes first, so drift and a stall of seconds (a slow server call)
      // spread over both kinds: with two rounds, the same code measured 0.48 to 0.64 on an idle machine.
      const seconds = { echo: 0, ask: 0 };
      for (let r = 0; r < B5_ROUNDS; r++) {
        const order = r % 2 === 0 ? (['echo', 'ask'] as const) : (['ask', 'echo'] as const);
        for (const kind of order) {
          const t = now();
          await runLanes(perRound, B5_LANES, kind === 'echo' ? echoOne : askOne);
          seconds[kind] += (now() - t) / 1000;
        }
      }
      const echoS = seconds.echo;
      const askS = seconds.ask;
      const after = countEvents(fx.logPath);
      const total = perRound * B5_ROUNDS;
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
      target: `≥ ${B5_TARGET}`,
      met: m.askRate / m.echoRate >= B5_TARGET,
      note:
        `A worker process (${config}). ${B5_LANES} lanes each start an mcpToolCall and wait for its result, ${m.total} calls ` +
        `per kind in ${B5_ROUNDS} rounds each, alternating which goes first, after a warm-up of ${B5_LANES} of each. With elicitation: ask_name (holdFor ` +
        `10 min), each answered by the bot (its lane starts the call together with a \`waitForPending\` update, then sends the \`submitAnswer\` ` +
        `update). Without: echo. Throughput = calls / wall time of that kind's rounds. "ask_name runs of the tool" above ` +
        `"ask_name calls" are re-runs of released calls. With elicitation a call takes four workflow tasks (start, the request ` +
        `recorded, the answer recorded, the result) and three updates, an echo two workflow tasks.`,
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
