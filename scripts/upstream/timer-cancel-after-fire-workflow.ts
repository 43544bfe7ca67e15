/**
 * The workflow of scripts/upstream/timer-cancel-after-fire.ts: waits for a `go` signal for at most one second, then
 * for a `finish` signal. When `go` comes first, the SDK cancels the one-second timer in the workflow task that handles
 * the signal, and that task sends nothing else (the run goes on waiting for `finish`). `go` carries a number of loop
 * iterations its handler spins through first, so that the task can stay at the worker a few milliseconds, as a
 * workflow with real work does. Nothing else (no activity, no other timer), so a stalled run is the server's doing.
 */
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const goSignal = defineSignal<[number]>('go');
export const finishSignal = defineSignal('finish');

export async function timerCancelAfterFire(): Promise<'signalled' | 'timed out'> {
  let signalled = false;
  let finished = false;
  let sum = 0;
  setHandler(goSignal, (work) => {
    for (let i = 0; i < work; i++) sum = (sum + i * i) % 1_000_003;
    signalled = sum >= 0;
  });
  setHandler(finishSignal, () => void (finished = true));
  const outcome = (await condition(() => signalled, '1s')) ? 'signalled' : 'timed out';
  await condition(() => finished);
  return outcome;
}
