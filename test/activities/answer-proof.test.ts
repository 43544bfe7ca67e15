/**
 * The inbox's proof of an answer's sender (src/codec/answer-link.ts) and the key the worker checks it with
 * (src/activities/answer-proof.ts): bound to the workflow, the request, the answer and every field of the sender; the
 * worker's key is `notify.linkKey` (its `${VAR}` expanded), else $DURABLE_MCP_ANSWER_LINK_KEY; a short or missing key
 * proves nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerProofKey, checkAnswerProofActivity } from '../../src/activities/answer-proof.js';
import type { ActivityDeps } from '../../src/activities/index.js';
import { answerProof, answerProofValid } from '../../src/codec/answer-link.js';
import type { AnswerProofInput } from '../../src/contract/activities.js';

const KEY = 'answer-proof-unit-key-0123456789abcdefgh';

describe("the inbox's proof of who answers", () => {
  const base: AnswerProofInput = {
    workflowId: 'wf-1',
    answer: { id: 'q1', ok: true, data: { name: 'Ada' } },
    by: 'ana@example.com (oidc https://id.example sub=a1)',
    source: 'oidc',
    person: 'https://id.example#a1',
  };
  const proof = answerProof(KEY, base);

  it('is valid for what it covers, and for nothing else', () => {
    assert.match(proof, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(answerProofValid(KEY, base, proof));
    const others: AnswerProofInput[] = [
      { ...base, workflowId: 'wf-2' },
      { ...base, answer: { id: 'q2', ok: true, data: { name: 'Ada' } } },
      { ...base, answer: { id: 'q1', ok: false, reason: 'declined' } },
      { ...base, by: 'eve' },
      { ...base, source: 'link' },
      { ...base, person: 'https://id.example#e1' },
      { ...base, person: undefined } as AnswerProofInput,
      { ...base, link: { run: 'r1' } },
    ];
    for (const other of others) assert.ok(!answerProofValid(KEY, other, proof), JSON.stringify(other));
    assert.ok(!answerProofValid(`${KEY}x`, base, proof), 'another key');
    for (const bad of [undefined, '', 42, `${proof}x`, 'x'.repeat(500)]) assert.ok(!answerProofValid(KEY, base, bad));
  });

  it("the worker's key: notify.linkKey (expanded), else $DURABLE_MCP_ANSWER_LINK_KEY; none or a short one proves nothing", async () => {
    const notify = (linkKey: string) => ({ notify: { url: 'https://hooks.example/x', linkKey } }) as Pick<ActivityDeps, 'notify'>;
    assert.equal(answerProofKey(notify(KEY), {}), KEY);
    assert.equal(answerProofKey(notify('${THE_KEY}'), { THE_KEY: KEY }), KEY);
    assert.equal(answerProofKey(notify('${THE_KEY}'), {}), undefined, 'an unset variable: no key');
    assert.equal(answerProofKey({}, { DURABLE_MCP_ANSWER_LINK_KEY: KEY }), KEY);
    assert.equal(answerProofKey({}, {}), undefined);
    assert.equal(answerProofKey({}, { DURABLE_MCP_ANSWER_LINK_KEY: 'short' }), undefined);
    assert.equal(answerProofKey(notify('too-short'), { DURABLE_MCP_ANSWER_LINK_KEY: KEY }), undefined, 'the config wins, and a short key is none');
    const check = checkAnswerProofActivity({ notify: notify(KEY).notify } as ActivityDeps);
    assert.equal(await check({ ...base, proof }), true);
    assert.equal(await check({ ...base, by: 'eve', proof }), false);
    const keyless = checkAnswerProofActivity({} as ActivityDeps);
    const saved = process.env.DURABLE_MCP_ANSWER_LINK_KEY;
    delete process.env.DURABLE_MCP_ANSWER_LINK_KEY;
    try {
      assert.equal(await keyless({ ...base, proof }), false, 'no key: nothing is proved');
    } finally {
      if (saved !== undefined) process.env.DURABLE_MCP_ANSWER_LINK_KEY = saved;
    }
  });
});
