/**
 * The dev server's own metrics (`--metrics-port`): what its history service answered to update calls. Past Temporal's
 * limit on updates in flight a run's updates are refused (ResourceExhausted) and every other one in flight is aborted
 * (Unavailable, retried): scripts/upstream/UPSTREAM.md, src/activities/update-slots.ts.
 */
import type { Client } from '@temporalio/client';
import { freePort } from './ports.js';
import { eventually } from './temporal.js';

/** Dev server flags that serve its metrics on a free port, and that port. */
export async function metricsFlags(): Promise<{ port: number; serverArgs: string[] }> {
  const port = await freePort();
  return { port, serverArgs: ['--metrics-port', String(port)] };
}

/** Update calls (plain and update-with-start) the history service refused or aborted, by error type; {} when none. */
export async function updateErrors(metricsPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const errors: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^client_errors\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !/operation="HistoryClient(UpdateWorkflowExecution|ExecuteMultiOperation)"/.test(m[1]!)) continue;
    const type = /error_type="([^"]+)"/.exec(m[1]!)?.[1] ?? '?';
    errors[type] = (errors[type] ?? 0) + Number(m[2]);
  }
  return errors;
}

/** The frontend's count of requests of `operation` in one scrape of the metrics. */
function frontendRequests(text: string, operation: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^service_requests\{([^}]*)\} (\S+)$/.exec(line);
    if (m && m[1]!.includes(`operation="${operation}"`) && m[1]!.includes('service_name="frontend"')) total += Number(m[2]);
  }
  return total;
}

/**
 * The update calls (plain ones, of every workflow of the namespace) the frontend has taken, settled: the server reports
 * its counters about once a second, all at once, so a marker request of an operation nothing else uses (describing a
 * schedule that does not exist) is made and the count read from the first report that shows it; every update call made
 * before this one is in it. Two readings around some requests: the update calls they cost.
 */
export async function settledUpdates(metricsPort: number, client: Client, namespace = 'default'): Promise<number> {
  const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const markers = frontendRequests(await scrape(), 'DescribeSchedule');
  await client.workflowService.describeSchedule({ namespace, scheduleId: `durable-mcp-marker-${process.pid}-${markers}` }).catch(() => undefined);
  return eventually(async () => {
    const text = await scrape();
    return frontendRequests(text, 'DescribeSchedule') > markers ? frontendRequests(text, 'UpdateWorkflowExecution') + 1 : undefined;
  }, "the marker request in the dev server's metrics").then((n) => n - 1);
}
