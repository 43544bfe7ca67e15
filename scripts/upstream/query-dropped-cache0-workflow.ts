/**
 * The workflow of scripts/upstream/query-dropped-cache0.ts: waits for a `finish` signal and answers a
 * `state` query. Nothing else (no activities, no timers), so a dropped query is Core's, not the workflow's.
 */
import { condition, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';

export const stateQuery = defineQuery<number>('state');
export const bumpSignal = defineSignal('bump');
export const finishSignal = defineSignal('finish');

export async function queried(): Promise<number> {
  let bumps = 0;
  let done = false;
  setHandler(stateQuery, () => bumps);
  setHandler(bumpSignal, () => void bumps++);
  setHandler(finishSignal, () => void (done = true));
  await condition(() => done);
  return bumps;
}
