/**
 * The round gate's messages (MCP 2026-07-28 `input_required` rounds, the legacy `-32042` form): the activity's
 * outcome that opens it (its JSON shape is recorded in histories: it never changes), what the next round carries, and
 * its share of the snapshot, the round a call waits in. Pure types.
 */
import type { ElicitParams } from '../../contract/index.js';
import type { WorkerFeatures } from '../../contract/worker-features.js';

/**
 * What a server asks in one round, task or -32042 error (MCP's `inputRequests`), handed back to the workflow: only
 * elicitations (key → `{ method: "elicitation/create", params }`, params raw). Each becomes a Request.
 */
export type InputRequests = Record<string, { method: 'elicitation/create'; params: ElicitParams }>;

/**
 * Modern era (`form: "mrtr"`): the round ended `input_required`, and nothing is held meanwhile: answer, then send
 * the next round with `requestState`.
 */
export interface CallMcpToolInputRequired extends WorkerFeatures {
  status: 'input_required';
  form: 'mrtr';
  inputRequests: InputRequests;
  requestState?: string;
}

/**
 * Legacy era (`form: "url-error"`): a `-32042` URLElicitationRequiredError: complete the URLs (`url1`, `url2`, …),
 * then call again from the start. It shares `status: "input_required"` with the modern round (the recorded value).
 */
export interface CallMcpToolUrlRequired extends WorkerFeatures {
  status: 'input_required';
  form: 'url-error';
  inputRequests: InputRequests;
  /** Never set: the call is made again from the start. */
  requestState?: undefined;
}

/** What the next round's activity carries from the previous round (absent on a call's first round). */
export interface NextRound {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

/** A key of a round: the server's key of one of its input requests, the id of the Request it became, and its mode. */
export interface RoundKey {
  key: string;
  id: string;
  mode: 'form' | 'url';
}

/**
 * A call waiting in a modern-era (MRTR) round: everything the next round needs besides the answers (which the
 * host holds as the round's requests resolve). Carried across continue-as-new (the snapshot's `rounds`), so the next
 * run resumes the call at this round (its number, `requestState` as given, the round's request ids), not at round 1.
 */
export interface RoundWait {
  round: number;
  requests: RoundKey[];
  /** Opaque; carried as given, never parsed or logged. */
  requestState?: string;
  form: 'mrtr' | 'url-error';
}
