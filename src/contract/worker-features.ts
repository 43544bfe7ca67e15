/**
 * The worker's features, as its workflows learn them (docs/architecture.md "Planes"). Pure types.
 */

/**
 * The worker's features, as its workflows learn them: one object, spread flat into the payloads that carry it (the
 * `elicit` update's input, the `callMcpTool` activity's waiting outcomes, the `loginWanted` update's input), so the
 * recorded histories keep their field names. The worker derives it from ActivityDeps (activities/deps.ts
 * `workerFeatures`); the host takes it in one method (`useWorkerFeatures`).
 */
export interface WorkerFeatures {
  /** The worker found the DurableMcpAwaitingInput search attribute registered: the workflow keeps it current. */
  searchAttribute?: boolean;
  /** The worker found every listing search attribute registered too (SEARCH_ATTRIBUTES): the workflow keeps them current. */
  listing?: boolean;
  /** The worker's config names a webhook: the workflow runs `notifyPending` when a request becomes pending. */
  notify?: boolean;
}

/**
 * Which of durable-mcp's search attributes a namespace has, as the worker finds them at start: none, only
 * DurableMcpAwaitingInput (`awaiting`), or all of SEARCH_ATTRIBUTES (`listing`).
 */
export type RegisteredSearchAttributes = 'none' | 'awaiting' | 'listing';
