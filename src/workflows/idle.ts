/**
 * The end of a run, shared by the workflows that carry a host (`mcpToolCall`, `mcpPipeline`, `mcpLogin`): wait until
 * the run is idle (every message handler finished, the callers of `waitForPending` answered at once), then complete or
 * continue as new. A handler that runs meanwhile may change the state (an answer arrives: the call runs again), so
 * the next run's input is built only once the run is idle, and the run goes on when there is none to build.
 * Deterministic: workflow APIs only.
 */
import { allHandlersFinished, condition, continueAsNew, type Workflow } from '@temporalio/workflow';
import type { ElicitationHost } from './host/index.js';

/** Wait until every handler of the run finished; the callers of `waitForPending` get their answer now. */
export async function untilIdle(host: ElicitationHost): Promise<void> {
  host.answerWatchersNow();
  await condition(allHandlersFinished);
}

/**
 * Continue as new once the run is idle, with the input `next()` builds then; `next()` returns undefined when the run
 * should go on after all (what it waited for changed meanwhile, or the input does not fit): then this returns, and
 * the callers of `waitForPending` wait again.
 */
export async function continueAsNewWhenIdle<F extends Workflow>(host: ElicitationHost, next: () => Parameters<F>[0] | undefined): Promise<void> {
  await untilIdle(host);
  const input = next();
  if (input !== undefined) await continueAsNew<F>(...([input] as Parameters<F>));
  host.letWatchersWait();
}
