/**
 * durable-mcp's metrics from workflow code. Counters and histograms go through the SDK's workflow metric
 * meter (`metricMeter`), which emits nothing while a workflow replays. The pending-requests gauge needs a
 * signed change (+1 when a request is recorded, −1 when it is resolved), which the workflow meter of SDK 1.24
 * does not offer (its gauge is last-writer-wins across every workflow of a worker), so it goes through the
 * `durableMcpMetrics` sink, which the SDK does not call while replaying either; the worker turns it into an
 * up-down counter of the runtime's meter (see src/telemetry/metrics.ts). Deterministic: workflow APIs only.
 */
import type { MetricCounter, MetricHistogram } from '@temporalio/common';
import { metricMeter, proxySinks, type Sinks } from '@temporalio/workflow';
import type { Answer } from '../contract/index.js';
import { requestOutcomeOf, type RequestOutcome } from '../contract/outcome.js';
import { MetricDescriptions, MetricNames, type MetricLabelValues } from './metric-names.js';

/** The sink the worker registers (createWorker) for the metrics the workflow meter cannot express. */
export interface DurableMcpSinks extends Sinks {
  durableMcpMetrics: {
    /** The number of pending requests of (server, kind) changed by `delta`. */
    pendingChanged(delta: number, tags: { server: string; kind: string }): void;
  };
}

/** How a request ended, as counted: what the MCP server was told, or `expired`. */
export type ResolvedOutcome = (typeof MetricLabelValues.outcome)[number];
/** The metric's label of each outcome (contract/outcome.ts): the MCP action's words. */
const OUTCOME_LABELS: Record<RequestOutcome, ResolvedOutcome> = { accepted: 'accept', declined: 'decline', cancelled: 'cancel', expired: 'expired' };

let resolved: MetricCounter | undefined;
let timeToAnswer: MetricHistogram | undefined;
let rounds: MetricCounter | undefined;
let approvals: MetricCounter | undefined;
const { durableMcpMetrics } = proxySinks<DurableMcpSinks>();

/** A request was recorded as pending (not on restore after continue-as-new: it was counted when it was recorded). */
export function requestPending(server: string, kind: string): void {
  durableMcpMetrics.pendingChanged(1, { server, kind });
}

/**
 * A pending request was resolved. `answeredAfterMs` is set when a person answered it (the time it waited):
 * expiries and withdrawn requests are not answers.
 */
export function requestResolved(server: string, kind: string, answer: Answer, answeredAfterMs?: number): void {
  durableMcpMetrics.pendingChanged(-1, { server, kind });
  resolved ??= metricMeter.createCounter(MetricNames.requestsResolved, '1', MetricDescriptions[MetricNames.requestsResolved]);
  resolved.add(1, { server, kind, outcome: OUTCOME_LABELS[requestOutcomeOf(answer)] });
  if (answeredAfterMs !== undefined) {
    timeToAnswer ??= metricMeter.createHistogram(MetricNames.timeToAnswer, 'int', 'ms', MetricDescriptions[MetricNames.timeToAnswer]);
    timeToAnswer.record(Math.max(0, Math.round(answeredAfterMs)), { server, kind });
  }
}

/**
 * What a modern-era round that ended `input_required` asked for: `input` (elicitations in `inputRequests`),
 * `request-state` (only `requestState`: the server shed load) or `url-error` (the legacy -32042 URL form).
 */
export type RoundKind = (typeof MetricLabelValues.roundKind)[number];

/** A modern-era (MRTR) round ended `input_required` (counted once per round, replay-safe through the workflow meter). */
export function mrtrRound(server: string, kind: RoundKind): void {
  rounds ??= metricMeter.createCounter(MetricNames.mrtrRounds, '1', MetricDescriptions[MetricNames.mrtrRounds]);
  rounds.add(1, { server, kind });
}

/** An approval was resolved (approved, declined, expired, cancelled): counted once, replay-safe through the workflow meter. */
export function approvalResolved(server: string, tool: string, outcome: string): void {
  approvals ??= metricMeter.createCounter(MetricNames.approvals, '1', MetricDescriptions[MetricNames.approvals]);
  approvals.add(1, { server, tool, outcome });
}
