/**
 * B12's look at where the time goes (not a benchmark: `node dist/bench/b12-history.js [server] [--cpu]`): one agent step
 * on each side, after a warm-up, with each history event's time from the workflow's start.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { b12Worker, sides } from './b12-mcp-client.js';
import { Cleanup, now, p50 } from './lib.js';
import { startDevServer, taskQueueFor } from './setup.js';

async function timeline(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const ms = (e: (typeof events)[number]) => Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6);
  const t0 = ms(events[0]!);
  return events.map((e) => {
    const kind = Object.keys(e)
      .find((k) => k.endsWith('EventAttributes'))!
      .replace('EventAttributes', '');
    const a = (e as Record<string, { activityType?: { name?: string }; markerName?: string }>)[`${kind}EventAttributes`];
    return `${String(ms(e) - t0).padStart(5)} ms  ${kind}${a?.activityType?.name ? ` ${a.activityType.name}` : ''}${a?.markerName ? ` ${a.markerName}` : ''}`;
  });
}

async function main() {
  const cleanup = new Cleanup();
  try {
    const env = await startDevServer(cleanup);
    const taskQueue = taskQueueFor('b12h');
    await b12Worker(cleanup, env, taskQueue);
    const s = sides.find((x) => x.server === (process.argv[2] ?? 'demo'))!;
    const n = Number(process.argv[3] ?? '10');
    const times: Record<string, number[]> = { durable: [], temporal: [] };
    let last: Record<string, string> = {};
    for (let i = 0; i < n; i++) {
      for (const side of ['durable', 'temporal'] as const) {
        const workflowId = `b12h-${side}-${randomUUID()}`;
        const t = now();
        if (side === 'durable')
          await env.client.workflow.execute('mcpAgent', {
            taskQueue,
            workflowId,
            args: [{ prompt: 'go', servers: [s.server], model: `durable-${s.server}`, tools: [`${s.server}_${s.tool}`] }],
          });
        else
          await env.client.workflow.execute('temporalMcpAgent', {
            taskQueue,
            workflowId,
            args: [{ prompt: 'go', server: s.server, model: `temporal-${s.server}` }],
          });
        if (i > 0) times[side]!.push(now() - t);
        last = { ...last, [side]: workflowId };
      }
    }
    for (const side of ['durable', 'temporal']) {
      console.log(`${side}: p50 ${Math.round(p50(times[side]!))} ms over ${n - 1}; the last one's history:`);
      for (const line of await timeline(env.client, last[side]!)) console.log(`  ${line}`);
    }
  } finally {
    await cleanup.run();
  }
}

await main();
