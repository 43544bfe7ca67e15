/**
 * An MCP task (2026-07-28 extension) carried across continue-as-new (docs/tasks.md "The history cost of a long task"):
 * `mcpToolCall` continues as new while the task's questions wait for a person, and between two watches, with the
 * task's state (its id, deadline, the keys asked, the round waited on) in the host's snapshot. The next run goes on
 * watching the same task: the server sees one `tools/call`, each question is asked once, each answer reaches the
 * server once (tasks/update). Against the task server of the project's own (test/fixtures/task-server.ts, over HTTP).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { mcpToolCall } from '../../src/workflows/index.js';
import { TOOL_CALL_MAX_UPDATES } from '../../src/workflows/mcp-tool-call.js';
import { answerSignal, pendingQuery, submitAnswerUpdate, waitForPendingUpdate } from '../../src/workflows/messages.js';
import { continueAsNewInputs, recordHistory } from '../helpers/history.js';
import { taskServerForFile } from '../helpers/task-server.js';
import { eventually, testEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

const tasks = taskServerForFile();
const { log, callsOf } = tasks;
const updatesOf = (taskId: unknown) => log().filter((e) => e.event === 'update' && e.taskId === taskId);

/** The activities each run of the chain scheduled, by type. */
async function activitiesByRun(handle: WorkflowHandle, runIds: string[]): Promise<string[][]> {
  const out: string[][] = [];
  for (const runId of runIds) {
    const { events } = await handle.client.getHandle(handle.workflowId, runId).fetchHistory();
    out.push(events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!));
  }
  return out;
}

describe('an MCP task carried across continue-as-new', () => {
  it(`${TOOL_CALL_MAX_UPDATES + 1} updates while the task's question waits: continued as new with the task, still answerable, one tools/call`, async () => {
    await using t = await testEnvironment({ name: 'tasks-continue-updates', extraServers: tasks.extraServers });
    const handle = await t.env.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `tasks-can-updates-${Date.now()}`,
      args: [{ server: 'tasks', tool: 'ask_twice' }],
    });
    const [name] = await waitForPending(handle);
    for (let i = 0; i < TOOL_CALL_MAX_UPDATES + 1; i++) {
      const pending = await handle.executeUpdate(waitForPendingUpdate, { args: [{ seen: [] }] });
      assert.deepEqual(
        pending.map((r) => r.id),
        [name.id],
      );
    }
    const carried = await continueAsNewInputs(handle);
    assert.ok(carried.length >= 1, `continued as new at least once (did ${carried.length})`);
    const taskId = (carried[0].input.continued.host.tasks as Array<{ task: { taskId: string } }>)[0].task.taskId;
    for (const c of carried) {
      const tasks = c.input.continued.host.tasks as Array<{
        callId: string;
        task: { taskId: string };
        asked: string[];
        round: number;
        requests: Array<{ id: string }>;
      }>;
      assert.deepEqual(
        tasks.map((w) => [w.callId, w.task.taskId, w.asked, w.round, w.requests.map((r) => r.id)]),
        [[c.input.continued.callId, taskId, ['name'], 1, [name.id]]],
        'each run carried the task, the key asked and the question it waits on',
      );
      assert.equal(c.input.continued.waitingFor, undefined, 'not a released call: nothing runs tools/call again');
    }
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: name.id, ok: true, data: { name: 'Ada' } }] });
    const color = await eventually(async () => (await handle.query(pendingQuery)).find((r) => r.prompt === 'Your colour?'), 'the second question');
    await handle.signal(answerSignal, { id: color.id, ok: true, data: { color: 'green' } });
    assert.deepEqual(await handle.result(), { output: 'Ada likes green', isError: false });

    assert.equal(callsOf('ask_twice').filter((c) => c.taskId === taskId).length, 1, 'one tools/call for the task');
    const updates = updatesOf(taskId);
    assert.deepEqual(
      updates.map((u) => Object.keys(u.inputResponses as object)),
      [['name'], ['color']],
      'each answer reached the server once',
    );
    const runs = await activitiesByRun(handle, [...carried.map((c) => c.runId), (await handle.describe()).runId]);
    assert.equal(runs.flat().filter((a) => a === 'callMcpTool').length, 1, 'callMcpTool ran in the first run only');
    assert.ok(runs.at(-1)!.includes('watchMcpTask'), 'the last run watched the same task');
  });

  it('a history past Temporal’s suggestion: continued as new between two watches with an answer not yet acknowledged; asked once, one tools/call', async () => {
    // The dev server suggests continue-as-new from a small history on, so the run continues as new wherever it may.
    await using t = await testEnvironment({
      name: 'tasks-continue-history',
      extraServers: tasks.extraServers,
      serverArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=12'],
    });
    const handle = await t.env.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `tasks-can-history-${Date.now()}`,
      args: [{ server: 'tasks', tool: 'ask_lagging', arguments: { lagMs: 2500 } }],
    });
    const [question] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: question.id, ok: true, data: { reason: 'because' } });
    assert.deepEqual(await handle.result(), { output: 'acknowledged: because', isError: false });

    const carried = await continueAsNewInputs(handle);
    assert.ok(carried.length >= 1, `continued as new at least once (did ${carried.length})`);
    // Between two watches: no question of the task waits for a person (none, or all answered and not yet sent).
    type Carried = { host: { tasks?: Array<{ requests?: Array<{ id: string }> }>; resolved: Array<{ answer: { id: string } }> } };
    const parked = ({ host }: Carried) => (host.tasks ?? []).some((w) => (w.requests ?? []).every((r) => host.resolved.some((x) => x.answer.id === r.id)));
    const between = carried.filter((c) => parked(c.input.continued));
    assert.ok(
      between.length >= 1,
      `at least one run continued as new between two watches (no question waiting); carried: ${JSON.stringify(carried.map((c) => ({ tasks: c.input.continued.host.tasks, resolved: c.input.continued.host.resolved.map((x: { answer: { id: string } }) => x.answer.id) })))}`,
    );
    const taskId = (carried[0].input.continued.host.tasks as Array<{ task: { taskId: string } }>)[0].task.taskId;
    assert.equal(callsOf('ask_lagging').filter((c) => c.taskId === taskId).length, 1, 'one tools/call for the task');
    assert.equal(updatesOf(taskId).length, 1, 'the answer reached the server once');
    const runs = await activitiesByRun(handle, [...carried.map((c) => c.runId), (await handle.describe()).runId]);
    assert.equal(runs.flat().filter((a) => a === 'callMcpTool').length, 1, 'callMcpTool ran in the first run only');
    // The replay test's histories of the task path: the first run, a run that parked between two watches, the last.
    await recordHistory(handle, 'task-continue-as-new-first', t.env.address, carried[0].runId);
    await recordHistory(handle, 'task-continue-as-new-between', t.env.address, between[0].runId);
    await recordHistory(handle, 'task-continue-as-new-last', t.env.address);
  });
  it('a run resumed with the task continues as new only between its watches, never during one: the answer reaches the server once', async () => {
    // Temporal suggests continue-as-new from the first events of each run on: a resumed run that still counted as
    // waiting while its first watch ran continued as new during that watch, and every next run sent the answer again
    // (4 or 5 tasks/update instead of 1, found under load with the threshold of the test above).
    await using t = await testEnvironment({
      name: 'tasks-continue-watching',
      extraServers: tasks.extraServers,
      serverArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=4'],
    });
    const handle = await t.env.client.workflow.start(mcpToolCall, {
      taskQueue: t.taskQueue,
      workflowId: `tasks-can-watching-${Date.now()}`,
      args: [{ server: 'tasks', tool: 'ask_lagging', arguments: { lagMs: 1500 } }],
    });
    const [question] = await waitForPending(handle);
    await handle.signal(answerSignal, { id: question.id, ok: true, data: { reason: 'because' } });
    assert.deepEqual(await handle.result(), { output: 'acknowledged: because', isError: false });
    const carried = await continueAsNewInputs(handle);
    assert.ok(carried.length >= 2, `continued as new in more than one run (did ${carried.length})`);
    const taskId = (carried[0].input.continued.host.tasks as Array<{ task: { taskId: string } }>)[0].task.taskId;
    assert.equal(callsOf('ask_lagging').filter((c) => c.taskId === taskId).length, 1, 'one tools/call for the task');
    assert.equal(updatesOf(taskId).length, 1, 'the answer reached the server once');
    // Every run's watch ended before the run continued as new (none left a watch running behind it).
    const runs = [...carried.map((c) => c.runId), (await handle.describe()).runId];
    for (const runId of runs) {
      const { events } = await handle.client.getHandle(handle.workflowId, runId).fetchHistory();
      const scheduled = events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
      const ended = events!.filter((e) => e.activityTaskCompletedEventAttributes || e.activityTaskFailedEventAttributes).length;
      assert.equal(ended, scheduled, `run ${runId}: every activity it scheduled ended in it`);
    }
    await recordHistory(handle, 'task-watch-ends-wait-resumed', t.env.address, carried[1]!.runId);
  });
});
