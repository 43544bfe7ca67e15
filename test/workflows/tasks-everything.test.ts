/**
 * MCP Tasks in the 2025-11-25 form (SEP-1686) through the worker: server-everything's `simulate-research-query`
 * (`execution.taskSupport: "required"`), started over streamable HTTP as its own process. The tool is called as a
 * task (`tools/call` with `task`), its status is the call's progress, its question (`ambiguous: true`) arrives as
 * `elicitation/create` while `tasks/result` waits and is a durable Request, asked once; the result comes from
 * `tasks/result`. See docs/tasks.md.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progressQuery, submitAnswerUpdate } from '../../src/workflows/messages.js';
import { startEverythingHttp } from '../helpers/everything.js';
import { serverForFile } from '../helpers/file-server.js';
import { eventually, startToolCall, suiteEnvironment } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

/** server-everything over streamable HTTP, its own process (started in `before`). */
const { extraServers } = serverForFile(startEverythingHttp, { research: {} });

describe('MCP Tasks, 2025-11-25 form: server-everything simulate-research-query over streamable HTTP', () => {
  const suite = suiteEnvironment({ name: 'tasks-everything', extraServers });

  it('a taskSupport "required" tool is called as a task: the result arrives through tasks/result, its status was the progress', async () => {
    const handle = await startToolCall(suite, 'tasks-everything', {
      server: 'research',
      tool: 'simulate-research-query',
      arguments: { topic: 'durable execution' },
    });
    const seen = new Set<string>();
    await eventually(async () => {
      for (const p of await handle.query(progressQuery)) if (p.message) seen.add(p.message);
      return [...seen].some((m) => /^working: (Analyzing|Synthesizing|Generating)/.test(m));
    }, 'a task status as progress');
    const result = await handle.result();
    assert.equal(result.isError, false, result.output);
    assert.match(result.output, /# Research Report: durable execution\n/);
    assert.doesNotMatch(result.output, /requires task augmentation/);
  });

  it('ambiguous: true: the person is asked once (a durable input Request), and the answer reaches the task', async () => {
    const handle = await startToolCall(suite, 'tasks-everything-ask', {
      server: 'research',
      tool: 'simulate-research-query',
      arguments: { topic: 'python', ambiguous: true },
    });
    const pending = await waitForPending(handle);
    assert.equal(pending.length, 1);
    const [request] = pending;
    assert.equal(request.kind, 'input');
    assert.match(request.prompt, /The research query "python" could have multiple interpretations/);
    await handle.executeUpdate(submitAnswerUpdate, { args: [{ id: request.id, ok: true, data: { interpretation: 'snake' } }] });
    const result = await handle.result();
    assert.equal(result.isError, false, result.output);
    assert.match(result.output, /# Research Report: python \(snake\)/);
    assert.match(result.output, /\*\*Clarification\*\*: snake/);
  });
});
