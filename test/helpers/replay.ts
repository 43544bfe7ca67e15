/**
 * The committed histories (test/histories) and their replay, for test/workflows/replay.test.ts and the fault suite's
 * F5: each with the workflow code that ran it. durable-mcp's own workflows replay with the prebuilt bundle (what a
 * worker runs); an `mcpAgent` with the bundle of an agent's worker: test/ai-sdk's workflows module (durable-mcp's
 * workflows and `mcpAgent`) bundled with `AiSdkPlugin` (test/ai-sdk/agent-bundle.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { prebuiltBundle, workflowsPath } from '../../src/worker/workflow-code.js';
import { durableMcpSinks } from '../../src/telemetry/metrics.js';
import { agentWorkflowBundle } from '../ai-sdk/agent-bundle.js';
import { historiesDir } from './history.js';

/** The workflow types an agent's worker runs and durable-mcp's prebuilt bundle does not hold. */
export const AGENT_WORKFLOW_TYPES: readonly string[] = ['mcpAgent'];

export interface CommittedHistory {
  /** The file's name without `.json`. */
  name: string;
  /** The id it was recorded under (test/histories/workflow-ids.json): child workflow ids derive from it. */
  workflowId: string;
  workflowType: string;
  history: ReturnType<typeof historyFromJSON>;
  /** The file's JSON as committed. */
  json: { events: Array<Record<string, unknown>> };
}

/** Every history under test/histories (workflow-ids.json maps a history's name to its workflow id; every other .json file is a history). */
export function committedHistories(): CommittedHistory[] {
  const idsPath = join(historiesDir, 'workflow-ids.json');
  const workflowIds: Record<string, string> = existsSync(idsPath) ? JSON.parse(readFileSync(idsPath, 'utf8')) : {};
  return readdirSync(historiesDir)
    .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
    .sort()
    .map((f) => {
      const name = f.replace(/\.json$/, '');
      const json = JSON.parse(readFileSync(join(historiesDir, f), 'utf8'));
      if (!Array.isArray(json?.events)) throw new Error(`test/histories/${f} is not a history ({ events: [...] })`);
      const history = historyFromJSON(json);
      const workflowType = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
      return { name, workflowId: workflowIds[name] ?? name, workflowType, history, json };
    });
}

/** Replays `histories` with the code each needs; returns the names replayed and each failure as "<name>: <message>". */
export async function replayCommitted(
  histories: CommittedHistory[],
  options: { dataConverter?: DataConverter } = {},
): Promise<{ replayed: string[]; failures: string[] }> {
  const replayed: string[] = [];
  const failures: string[] = [];
  const agent = histories.filter((h) => AGENT_WORKFLOW_TYPES.includes(h.workflowType));
  const own = histories.filter((h) => !AGENT_WORKFLOW_TYPES.includes(h.workflowType));
  const bundle = prebuiltBundle();
  const sets = [
    { histories: own, code: async () => (bundle ? { workflowBundle: bundle } : { workflowsPath }) },
    { histories: agent, code: async () => ({ workflowBundle: await agentWorkflowBundle() }) },
  ];
  for (const set of sets) {
    if (set.histories.length === 0) continue;
    const run = Worker.runReplayHistories(
      { ...(await set.code()), sinks: durableMcpSinks(), ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}) },
      set.histories.map((h) => ({ workflowId: h.workflowId, history: h.history })),
    );
    // One history at a time, in order (the runs of a continue-as-new share their workflow id).
    let i = 0;
    for await (const result of run) {
      const name = set.histories[i++]?.name ?? result.workflowId;
      replayed.push(name);
      if (result.error) failures.push(`${name}: ${result.error.message.slice(0, 600)}`);
    }
  }
  return { replayed, failures };
}
