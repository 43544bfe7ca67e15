/**
 * The benchmark worker's workflows: durable-mcp's own, plus `benchPing`, a workflow whose update handler
 * returns at once. Its update round trip (client → server → worker → server → client) is the baseline
 * of benchmark B1. `benchRelay` is B1's floor: the two update round trips any durable bridge needs.
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

/** Waits until something is held; returns what is held (the bot's view of a request). */
export const benchWatchUpdate = defineUpdate<string[], []>('benchWatch');
/** Holds `id` until it is answered (the bridge's view of a request). */
export const benchHoldUpdate = defineUpdate<string, [string]>('benchHold');
/** Answers `id`. */
export const benchAnswerUpdate = defineUpdate<string, [string]>('benchAnswer');

/**
 * The least a durable human round trip costs: one client's update records a request and is held, a second
 * client, told in that workflow task, answers with an update, whose workflow task releases the first. No
 * timers, no validation, no MCP: B1's floor.
 */
export async function benchRelay(): Promise<void> {
  const held = new Set<string>();
  const answered = new Set<string>();
  let stop = false;
  setHandler(benchWatchUpdate, async () => {
    await condition(() => held.size > 0);
    return [...held];
  });
  setHandler(benchHoldUpdate, async (id: string) => {
    held.add(id);
    await condition(() => answered.has(id));
    return id;
  });
  setHandler(benchAnswerUpdate, (id: string) => {
    answered.add(id);
    return id;
  });
  setHandler(benchStopSignal, () => {
    stop = true;
  });
  await condition(() => stop);
}
