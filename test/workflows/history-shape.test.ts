/** The shape of a recorded history (scripts/history-shape.ts), read from committed histories: no server. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { historyShape, shapeDiff } from '../../scripts/history-shape.js';
import { historiesDir } from '../helpers/history.js';

const history = (name: string) => JSON.parse(readFileSync(join(historiesDir, `${name}.json`), 'utf8'));

describe('history-shape', () => {
  it('writes the commands and messages of test/histories/accept.json in order, without ids, times or workflow tasks', () => {
    assert.deepEqual(historyShape(history('accept')), [
      'WORKFLOW_EXECUTION_STARTED mcpToolCall',
      'ACTIVITY_TASK_SCHEDULED callMcpTool',
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED durable-mcp.elicit',
      'TIMER_STARTED 180s',
      'WORKFLOW_EXECUTION_SIGNALED answer',
      'TIMER_CANCELED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED success',
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  it("names a patch's and a local activity's marker by their ids (test/histories/answer-proof.json)", () => {
    const markers = historyShape(history('answer-proof')).filter((line) => line.startsWith('MARKER_RECORDED'));
    assert.deepEqual(markers, ['MARKER_RECORDED core_patch durable-mcp:answer-proof', 'MARKER_RECORDED core_local_activity checkAnswerProof']);
  });

  it('finds no difference between a history and itself with other ids and times, and names a moved or changed command', () => {
    const original = history('accept');
    const rerecorded = structuredClone(original);
    for (const event of rerecorded.events) {
      event.eventId = String(Number(event.eventId) + 100);
      event.eventTime = '2030-01-01T00:00:00Z';
    }
    assert.deepEqual(shapeDiff(historyShape(original), historyShape(rerecorded)), []);

    const timer = rerecorded.events.find((e: any) => e.eventType === 'EVENT_TYPE_TIMER_STARTED');
    timer.timerStartedEventAttributes.startToFireTimeout = '300s';
    assert.deepEqual(shapeDiff(historyShape(original), historyShape(rerecorded)), ['-4 TIMER_STARTED 180s', '+4 TIMER_STARTED 300s']);

    const swapped = historyShape(original);
    [swapped[4], swapped[5]] = [swapped[5]!, swapped[4]!];
    assert.deepEqual(shapeDiff(historyShape(original), swapped), ['-5 WORKFLOW_EXECUTION_SIGNALED answer', '+6 WORKFLOW_EXECUTION_SIGNALED answer']);
  });
});
