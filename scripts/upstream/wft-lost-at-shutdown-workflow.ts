/**
 * The workflow of scripts/upstream/wft-lost-at-shutdown.ts: runs one activity that returns when its worker
 * starts shutting down, then waits for a `finish` update. Nothing else, so a lost workflow task is Core's.
 */
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';

export const finishUpdate = defineUpdate<string>('finish');

const { held } = proxyActivities<{ held(): Promise<string> }>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } });

export async function releasedAtShutdown(): Promise<string> {
  let done = false;
  setHandler(finishUpdate, () => {
    done = true;
    return 'finished';
  });
  const released = await held();
  await condition(() => done);
  return released;
}
