/**
 * The plane boundaries of the layout (docs/architecture.md) are lint rules: each plane's files are linted here with
 * an import they must not have, and with the imports they may have.
 */
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const eslint = new ESLint({ cwd: root });

/** The restricted-import messages ESLint reports for `code` as if it were the file `path` (relative to the root). */
async function restricted(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

const cases: { plane: string; file: string; forbidden: string[]; allowed: string[] }[] = [
  {
    plane: 'workflows',
    file: 'src/workflows/x.ts',
    forbidden: [
      "import 'node:fs';",
      "import '@modelcontextprotocol/client';",
      "import { createActivities } from '../activities/index.js';",
      // Not even a type (issue 42): what workflows and activities exchange is in contract/activities.ts.
      "import type { createActivities } from '../activities/index.js';",
      "import type { CallMcpToolInput } from '../activities/tool-call.js';",
      "import { SessionPool } from '../mcp/index.js';",
      "import 'zod';",
      "import { createWorker } from '../worker.js';",
      "import { connectClient } from '../client/index.js';",
      "import { startDev } from '../cli/dev.js';",
      "import { durableMcpSinks } from '../telemetry/metrics.js';",
    ],
    allowed: [
      "import type { DurableMcpActivities } from '../contract/activities.js';",
      "import { requestPending } from '../telemetry/workflow-metrics.js';",
      "import { checkAnswer } from '../contract/answer.js';",
    ],
  },
  {
    plane: 'workflows (nested folder)',
    file: 'src/workflows/pipeline/x.ts',
    forbidden: ["import { SessionPool } from '../../mcp/index.js';", "import { createWorker } from '../../worker.js';"],
    allowed: ["import type { SessionPool } from '../../mcp/index.js';"],
  },
  {
    plane: "a gate's wait (workflow code)",
    file: 'src/gates/x/workflow.ts',
    forbidden: [
      "import { approvalGate } from './activity.js';",
      "import type { CallState } from '../question/activity.js';",
      "import type { ActivityDeps } from '../../activities/deps.js';",
      "import 'node:fs';",
    ],
    allowed: ["import type { Approved } from './messages.js';", "import { condition } from '@temporalio/workflow';", "import { run } from '../step.js';"],
  },
  {
    plane: "a gate's check (activity code)",
    file: 'src/gates/x/activity.ts',
    forbidden: [
      "import { roundSteps } from './workflow.js';",
      "import type { Step } from '../step.js';",
      "import { condition } from '@temporalio/workflow';",
      "import { answerSignal } from '../../workflows/messages.js';",
    ],
    allowed: [
      "import { Context } from '@temporalio/activity';",
      "import type { Approved } from './messages.js';",
      "import { clientOf } from '../../activities/deps.js';",
    ],
  },
  {
    plane: 'workflow side of telemetry',
    file: 'src/telemetry/workflow-metrics.ts',
    forbidden: ["import 'node:os';", "import { Runtime } from '@temporalio/worker';"],
    allowed: ["import { proxySinks } from '@temporalio/workflow';"],
  },
  {
    plane: 'contract',
    file: 'src/contract/x.ts',
    forbidden: [
      "import 'node:crypto';",
      "import '@temporalio/common';",
      "import { SessionPool } from '../mcp/index.js';",
      "import type { GateContext } from '../gates/step.js';",
      "import type { RoundWait } from '../gates/round/workflow.js';",
    ],
    allowed: ["import { z } from 'zod';", "import type { CallMcpToolTask } from '../gates/task/messages.js';"],
  },
  {
    plane: 'mcp',
    file: 'src/mcp/x.ts',
    forbidden: [
      "import { createActivities } from '../activities/index.js';",
      "import { connectClient } from '../client/index.js';",
      "import { Context } from '@temporalio/activity';",
      "import { mcpToolCall } from '../workflows/index.js';",
      "import { watchSessions } from '../telemetry/metrics.js';",
    ],
    allowed: [
      "import { Client } from '@modelcontextprotocol/client';",
      "import { checkAnswer } from '../contract/index.js';",
      "import { readFileSync } from 'node:fs';",
    ],
  },
  {
    plane: 'activities',
    file: 'src/activities/x.ts',
    forbidden: [
      "import { connectClient } from '../client/index.js';",
      "import { startInbox } from '../inbox/index.js';",
      "import { condition } from '@temporalio/workflow';",
      "import { answerSignal } from '../workflows/messages.js';",
      // Not even a type (issue 42): what workflows and activities exchange is in contract/activities.ts.
      "import type { ElicitInput } from '../workflows/messages.js';",
      "import type { PendingRecord } from '../workflows/host/records.js';",
      "import { createWorker } from '../worker.js';",
    ],
    allowed: [
      "import { SessionPool } from '../mcp/index.js';",
      "import { Context } from '@temporalio/activity';",
      "import { tracedToolCall } from '../telemetry/tool-call-tracing.js';",
      "import type { ElicitInput } from '../contract/activities.js';",
    ],
  },
  {
    plane: 'client',
    file: 'src/client/x.ts',
    forbidden: [
      "import { SessionPool } from '../mcp/index.js';",
      "import { createActivities } from '../activities/index.js';",
      "import { startInbox } from '../inbox/index.js';",
      "import '@modelcontextprotocol/client';",
      "import { Worker } from '@temporalio/worker';",
      "import { mcpPipeline } from '../workflows/index.js';",
    ],
    allowed: [
      "import { submitAnswerUpdate } from '../workflows/messages.js';",
      "import { Client } from '@temporalio/client';",
      "import type { ExecuteMcpToolInput } from '../workflows/index.js';",
    ],
  },
  {
    plane: 'inbox',
    file: 'src/inbox/x.ts',
    forbidden: [
      "import { SessionPool } from '../mcp/index.js';",
      "import { createWorker } from '../worker.js';",
      "import { startDev } from '../cli/dev.js';",
      "import { Worker } from '@temporalio/worker';",
    ],
    allowed: [
      "import { DurableMcpClient } from '../client/index.js';",
      "import { Hono } from 'hono';",
      "import { checkElicitationUrl } from '../contract/admit.js';",
    ],
  },
  {
    plane: 'codec',
    file: 'src/codec/x.ts',
    forbidden: [
      "import { DurableMcpClient } from '../client/index.js';",
      "import { startInbox } from '../inbox/index.js';",
      "import { createWorker } from '../worker.js';",
      "import { Worker } from '@temporalio/worker';",
    ],
    allowed: [
      "import { SimplePlugin } from '@temporalio/plugin';",
      "import type { PayloadCodec } from '@temporalio/common';",
      "import { checkElicitationUrl } from '../contract/admit.js';",
    ],
  },
  {
    plane: 'telemetry',
    file: 'src/telemetry/x.ts',
    forbidden: ["import { SessionPool } from '../mcp/index.js';", "import { startDev } from '../cli/dev.js';", "import { createWorker } from '../worker.js';"],
    allowed: ["import type { SessionPool } from '../mcp/index.js';", "import { Runtime } from '@temporalio/worker';"],
  },
];

describe('lint keeps the planes apart', () => {
  for (const c of cases) {
    it(`${c.plane}: refuses what the plane must not import, accepts what it may`, async () => {
      for (const line of c.forbidden) assert.equal((await restricted(c.file, line)).length, 1, `${c.file} must not: ${line}`);
      for (const line of c.allowed) assert.deepEqual(await restricted(c.file, line), [], `${c.file} may: ${line}`);
    });
  }
  it('the CLI, the testing kit and the worker (src/worker.ts, src/worker/) may import every plane', async () => {
    const all =
      "import { SessionPool } from '../mcp/index.js';\nimport { createActivities } from '../activities/index.js';\nimport { connectClient } from '../client/index.js';";
    assert.deepEqual(await restricted('src/cli/x.ts', all), []);
    assert.deepEqual(await restricted('src/testing/x.ts', all), []);
    assert.deepEqual(await restricted('src/worker.ts', all.replaceAll('../', './')), []);
    assert.deepEqual(await restricted('src/worker/x.ts', all), []);
  });
});
