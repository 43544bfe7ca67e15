/**
 * B7: a person's inbox at N waiting requests (modern era: nothing held while they wait), listed from visibility. For
 * N = 1,000 and 10,000 (scaled by BENCH_SCALE): the first inbox page (GET /api/requests, and the HTML page) and
 * `pending --limit 100` (its listing, DurableMcpClient.listPending, in process; the CLI process's own wall time in the
 * details) as ratios to a bare visibility list of the same query and page size in the same run; the workflows shown as
 * unreachable while the worker is healthy (every page); the worker's CPU with 10 open tabs (server-sent events) minus idle.
 */
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DurableMcpClient } from '../src/client/index.js';
import { startInbox } from '../src/inbox/index.js';
import { now, p50, round, scaled, sleep, type BenchResult } from './lib.js';
import { modernSetup, startAwaitingInput, type Benchmark } from './setup.js';

const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const SAMPLES = 9;

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process's CPU use over `ms`, in percent of one core. */
async function cpuPercent(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  const t0 = now();
  await sleep(ms);
  return ((cpuSeconds(pid) - c0) / ((now() - t0) / 1000)) * 100;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = now();
  await fn();
  return now() - t;
}

export const b7: Benchmark = {
  id: 'B7',
  name: 'inbox at scale',
  budgetS: 1500,
  async run(cleanup) {
    const t0 = now();
    const { env, worker, taskQueue } = await modernSetup(cleanup, 'b7', { searchAttributes: true });
    const client = env.client;
    const dmc = new DurableMcpClient(client, { taskQueue });
    const inbox = await startInbox({ client, host: '127.0.0.1', port: 0, refreshMs: 1500 });
    cleanup.defer('inbox', () => inbox.close());
    const results: BenchResult[] = [];
    let waiting = 0;
    for (const target of [scaled(1000, 20), scaled(10_000, 50)]) {
      const tStart = now();
      await startAwaitingInput(client, {
        taskQueue,
        n: target - waiting,
        prefix: `b7-${target}`,
        input: { server: 'm', tool: 'ask_name' },
        deadlineMs: 3_600_000,
        progress: (count, s) => console.error(`[B7] ${s} s: ${count} more awaiting input`),
      });
      const startS = (now() - tStart) / 1000;
      waiting = target;
      await sleep(3000);
      const query = `DurableMcpAwaitingInput = true AND ExecutionStatus = 'Running'`;
      const bare = (pageSize: number) => () => client.workflowService.listWorkflowExecutions({ namespace: 'default', query, pageSize });
      const samples: Record<string, number[]> = { bare50: [], bare100: [], api: [], page: [], pending: [] };
      for (let i = 0; i < SAMPLES; i++) {
        samples.bare50!.push(await timed(bare(50)));
        samples.api!.push(await timed(async () => (await fetch(new URL('/api/requests', inbox.url))).json()));
        samples.page!.push(await timed(async () => (await fetch(inbox.url)).text()));
        samples.bare100!.push(await timed(bare(100)));
        samples.pending!.push(await timed(() => dmc.listPending({ limit: 100, order: 'expiry' })));
      }
      const cliMs = await timed(
        () =>
          new Promise<void>((resolve, reject) =>
            execFile(process.execPath, [cli, 'pending', '--limit', '100', '--json'], { env: { ...process.env, TEMPORAL_ADDRESS: env.address } }, (err) =>
              err ? reject(err) : resolve(),
            ),
          ),
      );
      // Unreachable: every row of every page (the whole N), with the worker healthy.
      const listT = now();
      const all = await dmc.listAwaitingInput();
      const listAllS = (now() - listT) / 1000;
      const unreachable = all.filter((w) => w.unreachable !== undefined).length;
      const listed = all.reduce((n, w) => n + w.pending.length, 0);
      const pageBytes = (await (await fetch(inbox.url)).text()).length;
      const { count: counted } = await client.workflow.count(query);

      // Worker CPU: idle (once it has settled from starting the calls, at most 3 min), then with 10 open tabs (event streams).
      let idle = await cpuPercent(worker.pid, 15_000);
      for (let i = 0; i < 12 && idle > 5; i++) idle = await cpuPercent(worker.pid, 15_000);
      const tabs = Array.from({ length: 10 }, () => new AbortController());
      await Promise.all(
        tabs.map(async (ac) => {
          const res = await fetch(new URL('/events', inbox.url), { signal: ac.signal });
          void (async () => {
            try {
              for await (const chunk of res.body!) void chunk;
            } catch {
              // closed
            }
          })();
        }),
      );
      const withTabs = await cpuPercent(worker.pid, 15_000);
      for (const ac of tabs) ac.abort();

      const ratioApi = p50(samples.api!) / p50(samples.bare50!);
      const ratioPending = p50(samples.pending!) / p50(samples.bare100!);
      const seconds = round((now() - t0) / 1000, 1);
      results.push({
        id: results.length === 0 ? 'B7' : 'B7b',
        name: `inbox at ${target} waiting requests`,
        measured: {
          'first inbox page (JSON) p50 ms': round(p50(samples.api!)),
          'first inbox page (HTML) p50 ms': round(p50(samples.page!)),
          'pending --limit 100 listing p50 ms': round(p50(samples.pending!)),
          'shown unreachable': unreachable,
          'worker CPU with 10 tabs − idle (points)': round(withTabs - idle),
        },
        baseline: { 'bare visibility page of 50 p50 ms': round(p50(samples.bare50!)), 'bare visibility page of 100 p50 ms': round(p50(samples.bare100!)) },
        ratio: round(Math.max(ratioApi, ratioPending)),
        ratioLabel: 'worst of (first inbox page / bare page of 50, pending --limit 100 / bare page of 100)',
        target: '≤ 1.5; 0 unreachable; ≤ 2 CPU points',
        met: Math.max(ratioApi, ratioPending) <= 1.5 && unreachable === 0 && withTabs - idle <= 2,
        note:
          `${target} modern-era calls of the fixture server's ask_name wait between rounds (nothing held) on one worker process. ` +
          `Samples interleaved: a bare listWorkflowExecutions of the listing's query (page of 50 and of 100), the inbox's ` +
          `/api/requests and its page (first page, 50 rows), and DurableMcpClient.listPending({ limit: 100 }) (what ` +
          '`pending --limit 100` runs). Unreachable: over every page of the whole list. CPU: the worker process, 15 s idle, ' +
          'then 15 s with 10 open event streams of the inbox.',
        details: {
          'inbox JSON / bare 50': round(ratioApi),
          'pending listing / bare 100': round(ratioPending),
          'inbox HTML / bare 50': round(p50(samples.page!) / p50(samples.bare50!)),
          'pending --limit 100 --json, the CLI process wall ms': round(cliMs),
          'requests listed over all pages': listed,
          'workflows visibility counts awaiting input': counted,
          'listing every page s': round(listAllS),
          'first page bytes (HTML)': pageBytes,
          'worker CPU idle %': round(idle),
          'worker CPU with 10 tabs %': round(withTabs),
          'starting the calls that wait, up to this N, s': round(startS, 1),
        },
        samples: SAMPLES,
        seconds,
      });
    }
    return results;
  },
};
