/** B1: the elicitation round trip, durable (B1) and in process (B1b), against the bare update round trip and its floor. */
import { WithStartWorkflowOperation, WorkflowUpdateStage } from '@temporalio/client';
import { McpSource } from '../src/mcp/index.js';
import { benchAnswerUpdate, benchPing, benchPingUpdate, benchRelay, benchStopSignal, benchWatchUpdate } from './workflows.js';
import {
  benchWorkerEntry,
  botAnswer,
  botStartAndAnswer,
  now,
  p50,
  p95,
  round,
  scaled,
  startHolderProcess,
  startWorkerProcess,
  type BenchResult,
} from './lib.js';
import {
  HOLD_LONG,
  askInput,
  benchSetup,
  callTool,
  countEvents,
  echoInput,
  expectOutput,
  lastElicitationRoundTrip,
  taskQueueFor,
  wid,
  type Benchmark,
} from './setup.js';

const B1_POLL_MS = 5;
/** B1's target: what the bridge adds to the server's wait, at most this many bare update round trips. */
export const B1_TARGET_RATIO = 2;

export const b1: Benchmark = {
  id: 'B1',
  name: 'elicitation round trip',
  budgetS: 75,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b1');
    const taskQueue = taskQueueFor('b1');
    await startWorkerProcess(cleanup, { entry: benchWorkerEntry, address: env.address, taskQueue, configPath: fx.configPath });
    const client = env.client;
    const ping = await client.workflow.start(benchPing, { taskQueue, workflowId: wid('b1-ping') });
    // The floor's holder runs in a process of its own, as the worker's activities do.
    const holder = await startHolderProcess(cleanup, env.address);

    const warmup = 3;
    const n = scaled(40, 5);
    const echo: number[] = [];
    const ask: number[] = [];
    const seenToResult: number[] = [];
    const answerUpdate: number[] = [];
    const polls: number[] = [];
    const askPolling: number[] = [];
    const pings: number[] = [];
    /** The floor: two update round trips relayed between two clients through a trivial workflow (benchRelay). */
    const floor: number[] = [];
    /** The elicitation round trip as the MCP server sees it (asked → received), per durable ask_name call. */
    const serverRoundTrip: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const keep = i >= warmup;
      // (1) a durable call without elicitation
      let t = now();
      const eh = await callTool(client, taskQueue, echoInput, 'b1-echo');
      expectOutput(await eh.result(), 'echo: x', 'echo');
      if (keep) echo.push(now() - t);
      // (2) a durable call with one elicitation, answered by the bot as soon as it shows in `pending`
      t = now();
      const bot = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b1-ask'), input: askInput(HOLD_LONG) }, { name: 'Ada' });
      expectOutput(await bot.handle.result(), 'hello Ada', 'ask_name');
      const done = now();
      if (keep) {
        ask.push(done - t);
        seenToResult.push(done - bot.seenAt);
        answerUpdate.push(bot.answeredAt - bot.seenAt);
        serverRoundTrip.push(lastElicitationRoundTrip(fx.logPath));
      }
      // (2b) the same, answered by a bot that polls the `pending` query instead
      t = now();
      const ph = await callTool(client, taskQueue, askInput(HOLD_LONG), 'b1-ask-poll');
      const pollingBot = await botAnswer(ph, { name: 'Ada' }, B1_POLL_MS);
      expectOutput(await ph.result(), 'hello Ada', 'ask_name');
      if (keep) {
        askPolling.push(now() - t);
        polls.push(pollingBot.polls);
      }
      // (3) the bare Temporal update round trip
      t = now();
      const echoed = await ping.executeUpdate(benchPingUpdate, { args: [i] });
      if (echoed !== i) throw new Error(`benchPing returned ${echoed}, expected ${i}`);
      if (keep) pings.push(now() - t);
      // (4) the floor: what any durable round trip costs (request recorded before it is shown, answer recorded
      // before it is passed on), with nothing else: the bot watches, the holder's update is held, the bot answers.
      const relayId = wid('b1-relay');
      const watch = await client.workflow.startUpdateWithStart(benchWatchUpdate, {
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: new WithStartWorkflowOperation(benchRelay, { taskQueue, workflowId: relayId, workflowIdConflictPolicy: 'FAIL' }),
      });
      const held = holder.hold(relayId);
      const [heldId] = await watch.result();
      await client.workflow.getHandle(relayId).executeUpdate(benchAnswerUpdate, { args: [heldId] });
      const heldMs = await held;
      if (keep) floor.push(heldMs);
      await client.workflow.getHandle(relayId).signal(benchStopSignal);
    }
    await ping.terminate('benchmark done').catch(() => undefined);
    const counts = countEvents(fx.logPath);

    // (b) the same server, in process, no Temporal
    const source = await McpSource.load(fx.config, (request) => ({ id: request.id, ok: true, data: { name: 'Ada' } }));
    cleanup.defer('McpSource', () => source.close());
    const srcEcho: number[] = [];
    const srcAsk: number[] = [];
    const srcRoundTrip: number[] = [];
    const m = scaled(200, 20);
    for (let i = 0; i < 10 + m; i++) {
      let t = now();
      expectOutput(await source.callTool('fx_echo', { text: 'x' }), 'echo: x', 'McpSource echo');
      if (i >= 10) srcEcho.push(now() - t);
      t = now();
      expectOutput(await source.callTool('fx_ask_name', {}), 'hello Ada', 'McpSource ask_name');
      if (i >= 10) {
        srcAsk.push(now() - t);
        srcRoundTrip.push(lastElicitationRoundTrip(fx.logPath));
      }
    }
    await source.close();
    // The elicitation round trip as the MCP server itself sees it (elicitation/create sent → result received):
    // durable bridge against the same server driven in process. The tool call's own workflow tasks (start,
    // completion) are outside it, so it is what the bridge adds to the server's wait.
    const added = p50(serverRoundTrip) - p50(srcRoundTrip);
    const endToEndAdded = p50(ask) - p50(echo);
    const durable: BenchResult = {
      id: 'B1',
      name: 'elicitation round trip (durable)',
      measured: {
        'added p50 ms': round(added),
        'server-side round trip p50 ms': round(p50(serverRoundTrip)),
        'server-side round trip p95 ms': round(p95(serverRoundTrip)),
        'in-process round trip p50 ms': round(p50(srcRoundTrip), 3),
        'seen→result p50 ms': round(p50(seenToResult)),
      },
      baseline: { 'update p50 ms': round(p50(pings)), 'update p95 ms': round(p95(pings)) },
      ratio: round(added / p50(pings)),
      ratioLabel: 'added p50 / update p50',
      target: `≤ ${B1_TARGET_RATIO}×`,
      met: added / p50(pings) <= B1_TARGET_RATIO,
      note:
        `The elicitation round trip as the MCP server sees it: the fixture server logs (with its own monotonic clock) when it ` +
        `sends \`elicitation/create\` and when the result arrives. Durable: mcpToolCall ask_name through a worker process ` +
        `(holdFor 10 min: the call waits inline), answered by a bot that starts the call together with a \`waitForPending\` ` +
        `update (update-with-start: told in the workflow task that records the request) and answers with the \`submitAnswer\` ` +
        `update. In process: the same server driven by \`McpSource.load(config, waitFor)\` whose waitFor answers at once (B1b). ` +
        `Added = p50(durable) − p50(in process); ratio = added / p50 of the bare update round trip (one update of a trivial ` +
        `workflow, \`benchPing\`, whose handler returns at once, on the same worker). Sequential samples, interleaved with ` +
        `(1) an mcpToolCall echo, (2b) the same ask_name with a bot that polls the \`pending\` query every ${B1_POLL_MS} ms, ` +
        `(3) the update, and (4) the floor: \`benchRelay\`, a trivial workflow where a holder client's update is held until ` +
        `the bot, told by a watch update in the task that accepted it, answers with a second update (two update round ` +
        `trips relayed between two clients, no timers, no validation, no MCP: the least any bridge that records the ` +
        `request before showing it and the answer before passing it on can cost). ` +
        `End to end (details): p50(ask_name) − p50(echo), start to result: ${round(endToEndAdded)} ms here, ` +
        `${endToEndAdded >= added ? `${round(endToEndAdded - added)} ms more` : `${round(added - endToEndAdded)} ms less`} than the ` +
        `server-side ${round(added)} ms (the two calls' own workflow tasks, outside the server's wait, differ by that much). ` +
        `seen→result: from the bot seeing the request to the workflow result.`,
      details: {
        'end to end: added p50 ms (ask_name − echo)': round(endToEndAdded),
        'end to end: ratio to update p50': round(endToEndAdded / p50(pings)),
        'ask_name p50 ms': round(p50(ask)),
        'ask_name p95 ms': round(p95(ask)),
        'echo p50 ms': round(p50(echo)),
        'echo p95 ms': round(p95(echo)),
        'floor: relay of two updates p50 ms': round(p50(floor)),
        'floor: ratio to update p50': round(p50(floor) / p50(pings)),
        'added / floor': round(added / p50(floor)),
        'bot answer update p50 ms': round(p50(answerUpdate)),
        'added p50 ms, paired (p50 of ask_name − echo per sample)': round(p50(ask.map((a, i) => a - echo[i]))),
        'ask_name p50 ms with a polling bot': round(p50(askPolling)),
        'added p50 ms with a polling bot': round(p50(askPolling) - p50(echo)),
        'polling bot: polls per call p50': p50(polls),
        'ask_name runs of the tool': counts.askCalls,
        'ask_name calls': 2 * (warmup + n),
        'MCP sessions opened': counts.sessions,
      },
      samples: n,
      seconds: 0,
    };

    const srcAdded = p50(srcAsk) - p50(srcEcho);
    const inProcess: BenchResult = {
      id: 'B1b',
      name: 'elicitation round trip (in-process McpSource)',
      measured: { 'ask_name p50 ms': round(p50(srcAsk), 3), 'ask_name p95 ms': round(p95(srcAsk), 3), 'added p50 ms': round(srcAdded, 3) },
      baseline: { 'echo p50 ms': round(p50(srcEcho), 3), 'echo p95 ms': round(p95(srcEcho), 3) },
      ratio: round(p50(srcAsk) / p50(srcEcho)),
      ratioLabel: 'ask_name p50 / echo p50',
      target: 'reference',
      met: null,
      note:
        `The same fixture server driven in process by \`McpSource.load(config, waitFor)\` whose waitFor answers at once: ` +
        `sequential \`callTool('fx_ask_name')\` vs \`callTool('fx_echo')\` on one session (no Temporal). The elicitation's ` +
        `own cost (one more JSON-RPC round trip over stdio); the durable bridge adds ${round(added)} ms at p50 to the server's wait (B1).`,
      details: {},
      samples: m,
      seconds: 0,
    };
    const seconds = round((now() - t0) / 1000, 1);
    durable.seconds = seconds;
    inProcess.seconds = seconds;
    return [durable, inProcess];
  },
};
