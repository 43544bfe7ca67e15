/**
 * durable-mcp's metrics from activities, through the activity metric meter (tagged by the SDK with the
 * namespace, task queue and activity type): how long each `callMcpTool` attempt took, by server, tool and
 * how it ended, and the calls released to wait for a person, by reason. A failed attempt's error is noted with its server
 * and tool for the worker's log.
 */
import { Context } from '@temporalio/activity';
import type { MetricCounter, MetricHistogram, MetricMeter } from '@temporalio/common';
import { MetricDescriptions, MetricNames } from './metric-names.js';
import { noteCallOf } from './worker-log.js';

interface Measured {
  server: string;
  tool: string;
}
/**
 * How an attempt ended: completed, released (with a reason), (modern era) input_required, login_required (OAuth),
 * approval_required, task (MCP Tasks), or regular (an inline attempt handed back to the activity, nothing ran).
 */
type Outcome =
  | { status: 'completed' }
  | { status: 'released'; reason: string }
  | { status: 'input_required' }
  | { status: 'login_required' }
  | { status: 'approval_required' }
  | { status: 'task' }
  | { status: 'regular' };

/** Wrap the `callMcpTool` activity so that each attempt is measured. */
export function measuredToolCall<I extends Measured, O extends Outcome>(fn: (input: I) => Promise<O>): (input: I) => Promise<O> {
  return async (input: I): Promise<O> => {
    const { released, duration } = instruments(Context.current().metricMeter);
    const t0 = performance.now();
    let status = 'failed';
    try {
      const out = await fn(input);
      status = out.status;
      if (out.status === 'released') released.add(1, { server: input.server, reason: out.reason });
      return out;
    } catch (err) {
      // The worker's log names the call's server and tool when the failure is the caller's mistake (./worker-log.ts).
      noteCallOf(err, input.server, input.tool);
      throw err;
    } finally {
      duration.record(Math.round(performance.now() - t0), { server: input.server, tool: input.tool, outcome: status });
    }
  };
}

/** The instruments on this attempt's meter (the SDK composes a meter per activity; its instruments are cheap handles). */
function instruments(meter: MetricMeter): { released: MetricCounter; duration: MetricHistogram } {
  return {
    released: meter.createCounter(MetricNames.callsReleased, '1', MetricDescriptions[MetricNames.callsReleased]),
    duration: meter.createHistogram(MetricNames.toolCallDuration, 'int', 'ms', MetricDescriptions[MetricNames.toolCallDuration]),
  };
}
