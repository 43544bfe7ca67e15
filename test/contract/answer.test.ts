import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AnswerSchema, checkAnswer, type Request } from '../../src/contract/index.js';
import { workflowBundlePath } from '../../src/worker.js';

// A URL-mode request: checkAnswer then judges the answer's shape only (no form content).
const pending: Request = { id: 'r1', kind: 'authorization', prompt: 'Sign in', url: 'https://example.com/auth' };

/** Answers of every shape: valid, wrong types, missing and extra keys, edge values. */
function corpus(): unknown[] {
  const ids: unknown[] = ['r1', '', 7, null, undefined, ['r1'], { id: 'r1' }];
  const oks: unknown[] = [true, false, 'true', 1, null, undefined];
  const datas: unknown[] = [undefined, {}, { a: 1 }, [], null, 'x', 3];
  const reasons: unknown[] = [undefined, 'declined', '', 5, null];
  const out: unknown[] = [];
  for (const id of ids)
    for (const ok of oks)
      for (const data of datas)
        for (const reason of reasons) {
          const a: Record<string, unknown> = {};
          if (id !== undefined) a.id = id;
          if (ok !== undefined) a.ok = ok;
          if (data !== undefined) a.data = data;
          if (reason !== undefined) a.reason = reason;
          out.push(a);
        }
  out.push({ id: 'r1', ok: true, extra: 1 }, { id: 'r1', ok: false, reason: 'x', data: {}, more: [] }, { id: 'r1', ok: true, data: undefined });
  return out;
}

describe('checkAnswer (the zod-free check the workflow runs)', () => {
  it('accepts and rejects exactly the answers AnswerSchema accepts and rejects', () => {
    let accepted = 0;
    for (const raw of corpus()) {
      const zod = AnswerSchema.safeParse(raw).success;
      const ours = checkAnswer(raw, pending);
      assert.equal(ours.ok, zod, `verdicts differ for ${JSON.stringify(raw)}: zod ${zod}, checkAnswer ${JSON.stringify(ours)}`);
      if (zod) accepted++;
    }
    assert.ok(accepted > 10, `the corpus has accepted answers too (${accepted})`);
  });

  it('names the field and the problem of a malformed answer', () => {
    const reason = (raw: unknown) => {
      const r = checkAnswer(raw, pending);
      assert.equal(r.ok, false);
      return (r as { reason: string }).reason;
    };
    assert.match(reason({ id: 'r1', ok: 'yes' }), /answer field "ok": must be a boolean, got "yes"/);
    assert.match(reason({ id: '', ok: true }), /answer field "id": id must be a non-empty string/);
    assert.match(reason({ id: 'r1', ok: false, data: [1] }), /answer field "data": must be an object, got \[1\]/);
    assert.match(reason({ id: 'r1', ok: false, reason: 3 }), /answer field "reason": must be a string, got 3/);
    assert.match(reason({ id: 'r1', ok: true, reason: 'x' }), /"reason".*only allowed when ok is false/);
    assert.match(reason({ id: 'r1', ok: true, extra: 1, more: 2 }), /unknown key\(s\) "extra", "more"/);
  });

  it('does not let zod into the workflow bundle (it would be evaluated again for every cached workflow)', () => {
    const bundle = readFileSync(workflowBundlePath, 'utf8');
    assert.equal(/node_modules\/zod\//.test(bundle), false, 'the prebuilt workflow bundle contains zod modules');
  });
});
