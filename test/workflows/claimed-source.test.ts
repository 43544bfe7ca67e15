/**
 * A source an answer's sender names is a claim until the worker checks it (issue 40, docs/security.md "Channels"): a
 * bare `answer` signal or `submitAnswer` update that names `oidc` or `link` without the inbox's proof is recorded as
 * claimed (never as a sign-in or a link), in the listing's memo (`durable-mcp history`); one with the proof the inbox makes (HMAC under the answer-link key the worker shares) is recorded
 * as its source, with the assurance the worker derives; a proof under another key, or for another person, is claimed.
 * The proof is checked by a local activity only when a sender names a source stronger than `cli` with a proof.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { answerProof } from '../../src/codec/answer-link.js';
import type { Answer } from '../../src/contract/index.js';
import { mcpPipeline, mcpToolCall, type McpToolCallInput } from '../../src/workflows/index.js';
import { answerSignal, submitAnswerUpdate, type AnswerBy } from '../../src/workflows/messages.js';
import { recordHistory } from '../helpers/history.js';
import { eventually, suiteEnvironment } from '../helpers/temporal.js';
import { receiver } from '../helpers/webhook.js';
import { waitForPending } from '../helpers/watch.js';

const KEY = 'claimed-source-test-key-0123456789abcdef';
/** The worker's webhook (the key is the config's `notify.linkKey`): it only has to answer. */
const hook = await receiver();

describe('a source named without proof is recorded as claimed', () => {
  after(() => hook.close());
  const suite = suiteEnvironment({ name: 'claimed-source', searchAttributes: true, configFields: { notify: { url: hook.url, linkKey: KEY } } });
  let n = 0;
  const start = async (input: Partial<McpToolCallInput> = {}) => {
    const handle = await suite.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `claimed-${process.pid}-${++n}-${Date.now()}`,
      args: [{ server: 'fx', tool: 'ask_name', elicitation: { holdFor: 1 }, reportAnswers: true, ...input } as McpToolCallInput],
    });
    const [request] = await waitForPending(handle);
    return { handle, id: request!.id };
  };
  /** What the memo records of the workflow's one resolution (what `durable-mcp history` prints). */
  const recorded = (workflowId: string) =>
    eventually(async () => {
      const { rows } = await suite.durable.listResolved({ since: new Date(Date.now() - 10 * 60_000), workflowId });
      return rows.find((r) => r.outcome === 'accepted');
    }, `${workflowId} resolution listed`);
  const localActivities = async (handle: WorkflowHandle) =>
    ((await handle.fetchHistory()).events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
  /** What each `checkAnswerProof` local activity of a workflow found (its marker's result). */
  const checks = async (handle: WorkflowHandle) =>
    ((await handle.fetchHistory()).events ?? [])
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!.result!.payloads![0]!.data!).toString('utf8')) as unknown);
  const answer = (id: string): Answer => ({ id, ok: true, data: { name: 'Ada' } });

  for (const source of ['oidc', 'link'] as const) {
    it(`a bare signal naming ${source} is recorded as claimed, never as ${source}`, async () => {
      const { handle, id } = await start();
      await handle.signal(answerSignal, answer(id), { by: 'ana@example.com', source, person: 'ana@example.com' });
      await handle.result();
      const row = await recorded(handle.workflowId);
      assert.equal(row.source, 'claimed');
      assert.equal(row.claimed, source);
      assert.equal(row.assurance, 'claimed');
      assert.equal(await localActivities(handle), 0, 'no proof, no check');
    });

    it(`an update naming ${source} is recorded as claimed; its result is as before`, async () => {
      const { handle, id } = await start();
      const result = await handle.executeUpdate(submitAnswerUpdate, { args: [answer(id), { by: 'ana@example.com', source }] });
      assert.deepEqual(result, { id, action: 'accept' });
      const row = await recorded(handle.workflowId);
      assert.deepEqual([row.source, row.claimed, row.assurance], ['claimed', source, 'claimed']);
    });
  }

  it('the CLI is recorded as cli, claimed by nature; a bare update as before, with its assurance: no local activity runs', async () => {
    const a = await start();
    await a.handle.executeUpdate(submitAnswerUpdate, { args: [answer(a.id), { by: 'lee', source: 'cli' }] });
    const b = await start();
    await b.handle.executeUpdate(submitAnswerUpdate, { args: [answer(b.id)] });
    const ra = await recorded(a.handle.workflowId);
    const rb = await recorded(b.handle.workflowId);
    assert.deepEqual([ra.by, ra.source, ra.claimed, ra.assurance], ['lee', 'cli', undefined, 'claimed']);
    assert.deepEqual([rb.by, rb.source, rb.assurance], ['update', undefined, 'claimed']);
    assert.equal(await localActivities(a.handle), 0);
    assert.equal(await localActivities(b.handle), 0);
  });

  it("the inbox's proof (the answer-link key) is checked by the worker: oidc recorded, with its assurance; never the proof", async () => {
    const { handle, id } = await start();
    const sender: AnswerBy = { by: 'ana@example.com (oidc https://id.example sub=a1)', source: 'oidc', person: 'https://id.example#a1' };
    const proof = answerProof(KEY, { workflowId: handle.workflowId, answer: answer(id), ...sender } as never);
    const result = await handle.executeUpdate(submitAnswerUpdate, { args: [answer(id), { ...sender, proof }] });
    assert.deepEqual(result, { id, action: 'accept' });
    const row = await recorded(handle.workflowId);
    assert.deepEqual([row.by, row.source, row.claimed, row.assurance], [sender.by, 'oidc', undefined, 'issuer-verified']);
    assert.ok(!JSON.stringify(row).includes(proof), 'the proof is not recorded');
    assert.equal(await localActivities(handle), 1, 'one check');
    await recordHistory(handle, 'answer-proof', suite.env.address);
  });

  it('a proof under another key, for another person or for another answer is claimed', async () => {
    const cases: Array<(wf: string, id: string) => { sender: AnswerBy; proof: string }> = [
      (wf, id) => ({
        sender: { by: 'ana', source: 'oidc' },
        proof: answerProof('another-key-0123456789abcdef0123456789', { workflowId: wf, answer: answer(id), by: 'ana', source: 'oidc' }),
      }),
      (wf, id) => ({ sender: { by: 'eve', source: 'oidc' }, proof: answerProof(KEY, { workflowId: wf, answer: answer(id), by: 'ana', source: 'oidc' }) }),
      (wf, id) => ({
        sender: { by: 'ana', source: 'link' },
        proof: answerProof(KEY, { workflowId: wf, answer: { id, ok: false, reason: 'declined' }, by: 'ana', source: 'link' }),
      }),
    ];
    for (const make of cases) {
      const { handle, id } = await start();
      const { sender, proof } = make(handle.workflowId, id);
      await handle.signal(answerSignal, answer(id), { ...sender, proof });
      const row = await recorded(handle.workflowId);
      assert.deepEqual([row.source, row.claimed, row.assurance], ['claimed', sender.source, 'claimed']);
    }
  });

  it("a pipeline forwards a step's answer with its proof: the child checks it against the pipeline's id; no proof, no check", async () => {
    const sender: AnswerBy = { by: 'ana', source: 'oidc', person: 'https://id.example#a1' };
    for (const withProof of [true, false]) {
      const handle = await suite.client.workflow.start(mcpPipeline, {
        taskQueue: suite.taskQueue,
        workflowId: `claimed-pipeline-${process.pid}-${++n}-${Date.now()}`,
        args: [{ steps: [{ name: 'child', server: 'fx', tool: 'ask_name', child: true }] }],
      });
      const [request] = await waitForPending(handle);
      const proof = answerProof(KEY, { workflowId: handle.workflowId, answer: answer(request!.id), ...sender } as never);
      await handle.executeUpdate(submitAnswerUpdate, { args: [answer(request!.id), { ...sender, ...(withProof ? { proof } : {}) }] });
      assert.equal((await handle.result()).status, 'completed');
      // The child records the step's answer (the pipeline lists a child's resolution only when it is listed itself): its
      // history holds the check and what it found.
      const started = (await handle.fetchHistory()).events?.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
      const child = suite.client.workflow.getHandle(started!.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!);
      assert.deepEqual(await checks(child), withProof ? [true] : [], withProof ? 'the child checked the proof: valid' : 'no proof, no check');
      assert.equal(await localActivities(handle), 0, 'the pipeline forwards the answer; it checks nothing itself');
    }
  });

  it('the inbox proves a token or a proxy too, with their own assurance', async () => {
    for (const [source, assurance] of [
      ['token', 'inbox-token'],
      ['proxy', 'proxy-header'],
      ['link', 'signed-link'],
    ] as const) {
      const { handle, id } = await start();
      const sender: AnswerBy = { by: 'inbox', source };
      const proof = answerProof(KEY, { workflowId: handle.workflowId, answer: answer(id), ...sender } as never);
      await handle.signal(answerSignal, answer(id), { ...sender, proof });
      const row = await recorded(handle.workflowId);
      assert.deepEqual([row.source, row.assurance], [source, assurance]);
    }
  });
});
