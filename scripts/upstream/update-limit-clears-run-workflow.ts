/**
 * The workflow of scripts/upstream/update-limit-clears-run.ts: a `hold` update that returns once the `open` signal
 * came (its validator can take a while). Nothing else (no activities, no timers).
 */
import { condition, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';

export const holdUpdate = defineUpdate<string, [number, number?]>('hold');
export const openSignal = defineSignal('open');

export async function holding(): Promise<void> {
  let open = false;
  setHandler(openSignal, () => void (open = true));
  setHandler(
    holdUpdate,
    async (n: number) => {
      await condition(() => open);
      return `held ${n}`;
    },
    {
      // The first update's workflow task takes a while (a validator that counts to `spin`; workflow time stands
      // still), so the others arrive while the worker holds it, as when a worker under load takes its time.
      validator: (n: number, spin = 0) => {
        let x = 0;
        for (let i = 0; i < (n === 0 ? spin : 0); i++) x += i % 7;
        if (x < 0) throw new Error('unreachable');
      },
    },
  );
  await condition(() => false);
}
