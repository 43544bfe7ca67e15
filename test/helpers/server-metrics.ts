/**
 * The dev server's own metrics (`--metrics-port`): what its history service answered to update calls. Past Temporal's
 * limit on updates in flight a run's updates are refused (ResourceExhausted) and every other one in flight is aborted
 * (Unavailable, retried): scripts/upstream/UPSTREAM.md, src/activities/update-slots.ts.
 */
import { freePort } from './ports.js';

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

/** Update calls (plain ones) the frontend took, of every workflow of the namespace: a callback that reached a login counts one. */
export async function updateRequests(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^service_requests\{([^}]*)\} (\S+)$/.exec(line);
    if (m && /operation="UpdateWorkflowExecution"/.test(m[1]!) && /service_name="frontend"/.test(m[1]!)) total += Number(m[2]);
  }
  return total;
}
