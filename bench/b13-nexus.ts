/**
 * B13: `callTool` through Nexus from another namespace (docs/nexus.md) against `mcpToolCall` started directly, on one
 * worker process (`durable-mcp worker --nexus`): a call with no question (echo), and one with a question (ask_name)
 * answered by a bot. The caller is a TypeScript workflow in its own namespace (test/nexus/caller-workflows.ts) on an
 * in-process worker; the namespace and endpoint are created with the Temporal CLI.
 */
import { Client } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { findTemporalBinary } from '../src/cli/temporal-binaries.js';
import { Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { submitAnswerUpdate, waitForPendingUpdate } from '../src/workflows/messages.js';
import { botStartAndAnswer, now, p50, p95, round, runInProcess, scaled, sleep, startWorkerProcess, workerEntry, type BenchResult } from './lib.js';
import { HOLD_LONG, askInput, benchSetup, callTool, echoInput, expectOutput, taskQueueFor, wid, type Benchmark } from './setup.js';

const callerWorkflows = fileURLToPath(new URL('../test/nexus/caller-workflows.js', import.meta.url));
const CALLER_NS = 'b13-caller';
const ENDPOINT = 'b13-durable-mcp';

export const b13: Benchmark = {
  id: 'B13',
  name: 'callTool through Nexus',
  budgetS: 120,
  async run(cleanup) {
    const t0 = now();
    const { fx, env } = await benchSetup(cleanup, 'b13');
    const taskQueue = taskQueueFor('b13');
    // The caller's namespace and the endpoint, as docs/nexus.md makes them.
    const cli = findTemporalBinary('cli', { allowDownload: false }).path!;
    const temporal = (...args: string[]) => execFileSync(cli, [...args, '--address', env.address], { encoding: 'utf8' });
    temporal('operator', 'namespace', 'create', '--namespace', CALLER_NS);
    temporal('operator', 'nexus', 'endpoint', 'create', '--name', ENDPOINT, '--target-namespace', 'default', '--target-task-queue', taskQueue);
    await startWorkerProcess(cleanup, { entry: workerEntry, address: env.address, taskQueue, configPath: fx.configPath, args: ['--nexus'] });
    const callers = new Client({ connection: env.connection, namespace: CALLER_NS });
    // A freshly registered namespace may be unknown for a moment.
    let worker: Worker | undefined;
    for (let i = 0; !worker; i++) {
      try {
        worker = await Worker.create({ connection: env.nativeConnection, namespace: CALLER_NS, taskQueue: 'b13-callers', workflowsPath: callerWorkflows });
      } catch (err) {
        if (i > 50) throw err;
        await sleep(200);
      }
    }
    runInProcess(cleanup, 'B13 caller worker', worker);
    const client = env.client;
    const viaNexus = (input: Record<string, unknown>, prefix: string) =>
      callers.workflow.start('nexusCaller', { taskQueue: 'b13-callers', workflowId: wid(prefix), args: [ENDPOINT, 'callTool', input] });
    const warmup = 3;
    const n = scaled(30, 5);
    const direct: number[] = [];
    const nexus: number[] = [];
    const askDirect: number[] = [];
    const askNexus: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const keep = i >= warmup;
      // (1) echo, started directly
      let t = now();
      expectOutput(await (await callTool(client, taskQueue, echoInput, 'b13-echo')).result(), 'echo: x', 'echo');
      if (keep) direct.push(now() - t);
      // (2) echo through Nexus: the caller workflow starts, schedules the operation, gets the result
      t = now();
      expectOutput((await (await viaNexus(echoInput as unknown as Record<string, unknown>, 'b13-nexus-echo')).result()) as never, 'echo: x', 'echo via Nexus');
      if (keep) nexus.push(now() - t);
      // (3) ask_name started directly, answered by B1's bot (update-with-start: told in the task that records the request)
      t = now();
      const asked = await botStartAndAnswer(client, { taskQueue, workflowId: wid('b13-ask'), input: askInput(HOLD_LONG) }, { name: 'Ada' });
      expectOutput(await asked.handle.result(), 'hello Ada', 'ask_name');
      if (keep) askDirect.push(now() - t);
      // (4) ask_name through Nexus: the bot reads the backing workflow from the operation's token (polled every 10 ms),
      // then waits for its request with the waitForPending update and answers it.
      t = now();
      const caller = await viaNexus(askInput(HOLD_LONG) as unknown as Record<string, unknown>, 'b13-nexus-ask');
      let token: string | undefined;
      while (!(token = await caller.query<string | undefined>('operationToken').catch(() => undefined))) await sleep(10);
      const backing = client.workflow.getHandle((JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { wid: string }).wid);
      const [request] = await backing.executeUpdate(waitForPendingUpdate, { args: [{ timeoutMs: 60_000 }] });
      if (!request) throw new Error('B13: no request through Nexus');
      await backing.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { name: 'Ada' } }] });
      expectOutput((await caller.result()) as never, 'hello Ada', 'ask_name via Nexus');
      if (keep) askNexus.push(now() - t);
    }
    /** One result: the Nexus samples against the direct ones, start to result, both sides' p50 and p95. */
    const result = (id: string, name: string, viaNexus: number[], started: number[], note: string): BenchResult => ({
      id,
      name,
      measured: { 'Nexus call p50 ms': round(p50(viaNexus)), 'Nexus call p95 ms': round(p95(viaNexus)) },
      baseline: { 'direct call p50 ms': round(p50(started)), 'direct call p95 ms': round(p95(started)) },
      ratio: round(p50(viaNexus) / p50(started)),
      ratioLabel: 'Nexus p50 / direct p50',
      target: 'reference',
      met: null,
      note: `${note} Added p50 ms ${round(p50(viaNexus) - p50(started))}.`,
      details: {},
      samples: n,
      seconds: round((now() - t0) / 1000, 1),
    });
    return [
      result(
        'B13',
        'callTool through Nexus (no question)',
        nexus,
        direct,
        `echo, start to result. Direct: mcpToolCall started by a client. Nexus: a caller workflow in namespace ${CALLER_NS} (in-process worker) ` +
          `starts callTool on an endpoint targeting the worker process's task queue (\`worker --nexus\`): the caller's own workflow start and ` +
          `tasks, the operation's schedule, the Nexus task, the handler's start of mcpToolCall, the completion callback and the caller's last task. ` +
          `Sequential, interleaved samples.`,
      ),
      result(
        'B13q',
        'callTool through Nexus (one question, a bot answers)',
        askNexus,
        askDirect,
        `ask_name (holdFor 10 min), start to result, answered by a bot with submitAnswer. Direct: B1's bot (update-with-start). Nexus: the bot ` +
          `polls the caller's operation token (every 10 ms) for the backing workflow, then waits for its request with the waitForPending ` +
          `update: that discovery is part of what Nexus adds here.`,
      ),
    ];
  },
};
