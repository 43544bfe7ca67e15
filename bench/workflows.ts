/**
 * The benchmark worker's workflows: durable-mcp's own, plus `benchPing`, a workflow whose update handler
 * returns at once. Its update round trip (client → server → worker → server → client) is the baseline
 * of benchmark B1.
 */
import { condition, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';

export * from '../src/workflows/index.js';

/** Returns its argument at once. */
export const benchPingUpdate = defineUpdate<number, [number]>('benchPing');
/** Ends `benchPing`. */
export const benchStopSignal = defineSignal('benchStop');

export async function benchPing(): Promise<void> {
  let stop = false;
  setHandler(benchPingUpdate, (n: number) => n);
  setHandler(benchStopSignal, () => {
    stop = true;
  });
  await condition(() => stop);
}
