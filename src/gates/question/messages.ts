/**
 * The question gate's messages: the `elicit` update an activity sends its workflow when the server asks during a call
 * (`elicitation/create`), and what it gets back. Its JSON shape is recorded in histories: it never changes. Pure types.
 */
import type { Answer, Request } from '../../contract/index.js';
import type { WorkerFeatures } from '../../contract/worker-features.js';

/** The `elicit` update's input: the call, the request, and the worker's features. */
export interface ElicitInput extends WorkerFeatures {
  callId: string;
  request: Request;
}

export type ElicitOutcome = { status: 'answered'; answer: Answer } | { status: 'released'; request: Request };
